import { expect } from 'vitest'
import type { Item } from '../items'
import { createMemory } from '../memory'
import type { StrataStoreBase } from '../stores'
import { hasContentMethods } from '../stores/store-check'

/**
 * The normative view rule written as plainly as it reads, to check `thread.view` against: walk the log
 * newest to oldest; leave out context-memory items (facts, non-scope summaries); keep items of `level`;
 * skip narrower items; stop at the first broader item; return the kept items oldest first.
 */
export function referenceView(items: readonly Item[], level: string, levels: readonly string[]): Item[] {
  const kept: Item[] = []
  for (const item of [...items].reverse()) {
    if (item.type === 'fact' || (item.type === 'summary' && item.tier !== 'scope')) continue
    if (levels.indexOf(item.level) < levels.indexOf(level)) break
    if (item.level === level) kept.unshift(item)
  }
  return kept
}

/**
 * A worker at the broadest level takes a task directly (`global` → `task`), calls a tool and exits: the
 * transition and scope summary are written at `global` (the enclosing scope's level), every level's
 * view follows the rule, and a thread reopened from `store` derives the same level and scopes.
 */
export async function checkSkipLevelScope(store: StrataStoreBase, threadId: string): Promise<void> {
  // A store without the content capability runs with the content channel off, as core requires.
  const memoryOn = () =>
    hasContentMethods(store) ? createMemory({ store }) : createMemory({ store, content: false })
  const memory = memoryOn()
  const thread = await memory.thread(threadId)
  const levels = memory.ladder.levels
  const viewsFollowTheRule = async () => {
    const items = await thread.items()
    for (const level of levels) {
      expect(await thread.view(level)).toEqual(referenceView(items, level, levels))
    }
  }
  await thread.append({ role: 'user', content: 'Fix the login bug.' })
  const opening = await thread.enter('task', { title: 'Fix login', instructions: 'The form rejects emails.' })
  expect(opening.level).toBe('task')
  expect(thread.level).toBe('task')
  await thread.append([
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'login.ts' } }],
    },
    {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: 'code' }],
    },
    { role: 'assistant', content: 'The regex was wrong; fixed.' },
  ])
  await viewsFollowTheRule()
  expect((await thread.view('task')).map((item) => item.seq)).toEqual([2, 3, 4, 5])
  expect(await thread.view('project')).toEqual([])

  // Reopened while the task is open: the same level and scopes.
  const open = await memoryOn().thread(threadId)
  expect(open.level).toBe('task')
  expect(open.scopes).toEqual(thread.scopes)

  const { transition, summary } = await thread.exit({ summary: 'Fixed the email regex.' })
  expect(transition).toMatchObject({ level: 'global', fromLevel: 'task', range: { fromSeq: 2, toSeq: 5 } })
  expect(transition.reason).toBe('task-complete')
  expect(summary).toMatchObject({ level: 'global', tier: 'scope', text: 'Fixed the email regex.' })
  expect(thread.level).toBe('global')
  expect(thread.scopes).toEqual([])
  await viewsFollowTheRule()
  expect((await thread.view('global')).map((item) => item.type)).toEqual(['message', 'transition', 'summary'])
  expect(await thread.view('task')).toEqual([])

  await thread.append({ role: 'user', content: 'Thanks!' })
  await viewsFollowTheRule()
  const closed = await memoryOn().thread(threadId)
  expect(closed.level).toBe('global')
  expect(closed.scopes).toEqual([])
  expect(await closed.view('global')).toEqual(await thread.view('global'))
}
