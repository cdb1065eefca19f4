import { describe, expect, it } from 'vitest'
import { inMemoryStore } from '../stores'
import { checkSkipLevelScope, referenceView } from '../testing/skip-level-scope'
import { createMemory } from './create-memory'

const code = (value: string) => expect.objectContaining({ code: value })

describe('skip-level scopes', () => {
  it('global → enter(task) → tool calls → exit(): views follow the rule, the transition is at global', async () => {
    await checkSkipLevelScope(inMemoryStore(), 'skip-level')
  })

  it('exit returns to the scope it was entered from, not the ladder parent', async () => {
    const memory = createMemory({ levels: ['global', 'area', 'project', 'task'] })
    const thread = await memory.thread('nested-skips')
    await thread.enter('area', { title: 'Billing' })
    await thread.enter('task', { title: 'Refund' })
    await thread.append({ role: 'assistant', content: 'Refunded.' })
    const { transition } = await thread.exit()
    expect(transition).toMatchObject({ level: 'area', fromLevel: 'task' })
    expect(thread.level).toBe('area')
    const items = await thread.items()
    for (const level of memory.ladder.levels) {
      expect(await thread.view(level)).toEqual(referenceView(items, level, memory.ladder.levels))
    }
    const closed = await thread.exit()
    expect(closed.transition).toMatchObject({ level: 'global', fromLevel: 'area' })
    expect(thread.level).toBe('global')
  })

  it('the same level or a broader one is STRATA_INVALID_SCOPE naming the allowed levels; nothing is written', async () => {
    const thread = await createMemory().thread('skip-refusals')
    await thread.enter('project', { title: 'P' })
    await expect(thread.enter('project', { title: 'Q' })).rejects.toThrow(
      expect.objectContaining({ code: 'STRATA_INVALID_SCOPE', message: expect.stringContaining("'task'") }),
    )
    await expect(thread.enter('global', { title: 'G' })).rejects.toThrow(code('STRATA_INVALID_SCOPE'))
    await thread.enter('task', { title: 'T' })
    await expect(thread.enter('task', { title: 'U' })).rejects.toThrow(
      expect.objectContaining({ message: expect.stringContaining('narrowest') }),
    )
    expect(await thread.items()).toHaveLength(2)
  })

  it('a late tool result after a skip-level enter reopens the task, and a reopened thread agrees', async () => {
    const store = inMemoryStore()
    const thread = await createMemory({ store }).thread('skip-late')
    await thread.append({ role: 'user', content: 'go' })
    await thread.append({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: {} }],
    })
    await thread.enter('task', { title: 'T' })
    await thread.append({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: 'hit' }],
    })
    expect(thread.level).toBe('task')
    const view = await thread.view('task')
    expect(view.at(-1)).toMatchObject({ level: 'task', scope: { title: 'T', continuedFrom: 3 } })
    const again = await createMemory({ store }).thread('skip-late')
    expect(again.scopes).toEqual(thread.scopes)
    const { transition } = await again.exit()
    expect(transition).toMatchObject({ level: 'global', fromLevel: 'task' })
  })
})
