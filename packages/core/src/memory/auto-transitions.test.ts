import { describe, expect, it } from 'vitest'
import type { CompactionOptions } from '../compaction'
import type { TransitionEvent } from '../events'
import type { Item, TransitionItem } from '../items'
import { inMemoryStore } from '../stores'
import { createMemory } from './create-memory'

const HOUR = 3_600_000

async function setup(compaction: CompactionOptions, { start = 0 }: { start?: number } = {}) {
  let now = 1_700_000_000_000 + start
  const memory = createMemory({ store: inMemoryStore(), compaction, clock: () => now })
  const transitions: TransitionEvent[] = []
  memory.on('transition', (event) => transitions.push(event))
  const thread = await memory.thread('auto')
  return {
    memory,
    thread,
    transitions,
    advance: (ms: number) => {
      now += ms
    },
  }
}

const automatic = (items: readonly Item[]) =>
  items.filter(
    (item): item is TransitionItem =>
      item.type === 'transition' && ['size-limit', 'time-limit', 'token-budget'].includes(item.reason),
  )

describe('automatic transitions at the narrowest level', () => {
  it('close the task at 20 items when the next request comes, and reopen it', async () => {
    const { thread, transitions } = await setup({ autoTransitions: {} })
    await thread.enter('project', { title: 'Website' })
    await thread.enter('task', { title: 'Draw a house', instructions: 'Use blue.' })
    // The opening item and 18 messages: 19 items, under the limit.
    for (let index = 0; index < 18; index++) {
      await thread.append({ role: index % 2 === 0 ? 'user' : 'assistant', content: `step ${index}` })
    }
    await thread.append({ role: 'assistant', content: 'step 18' })
    expect(automatic(await thread.items())).toHaveLength(0)
    // 20 items now; an answer does not close it (no turn is cut), the next request does.
    await thread.append({ role: 'user', content: 'next request' })

    const items = await thread.items()
    const [transition] = automatic(items)
    expect(transition).toMatchObject({
      level: 'project',
      fromLevel: 'task',
      reason: 'size-limit',
      range: { fromSeq: 2, toSeq: 21 },
      userFacingMessage: expect.stringContaining('Task "Draw a house" reached its size limit'),
    })
    expect(transitions).toHaveLength(1)
    expect(transitions[0]!.transition.id).toBe(transition!.id)
    expect(transitions[0]!.summary).toMatchObject({ tier: 'scope', range: transition!.range })

    // The application is still in its task, which goes on with a fresh view.
    expect(thread.level).toBe('task')
    expect(thread.scopes.map((scope) => scope.title)).toEqual(['Website', 'Draw a house'])
    const view = await thread.view('task')
    expect(view.map((item) => item.type === 'message' && item.content[0])).toEqual([
      { type: 'text', text: 'Task (continued): Draw a house\n\nUse blue.' },
      { type: 'text', text: 'next request' },
    ])
    expect(view[0]).toMatchObject({
      scope: { title: 'Draw a house', instructions: 'Use blue.', continuedFrom: 2 },
    })
    // The project sees the closed part as a transition and its summary; nothing left the log.
    const project = await thread.view('project')
    expect(project.map((item) => item.type)).toEqual(['message', 'transition', 'summary'])
    expect(items.filter((item) => item.type === 'message')).toHaveLength(1 + 1 + 19 + 1 + 1)

    // A later exit closes the reopened task as usual.
    const exited = await thread.exit({ outcome: 'complete' })
    expect(exited.transition).toMatchObject({ reason: 'task-complete', range: { fromSeq: 24 } })
    expect(thread.level).toBe('project')
  })

  it('close the task at 10 tool actions inside the request that makes them, never between a call and its result', async () => {
    const { thread, transitions } = await setup({ autoTransitions: { narrowest: { items: 1_000 } } })
    await thread.enter('project', { title: 'P' })
    await thread.enter('task', { title: 'T' })
    await thread.append({ role: 'user', content: 'draw twelve shapes' })
    for (let index = 0; index < 12; index++) {
      await thread.append({
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: `c${index}`, toolName: 'create_shape', input: { index } }],
      })
      await thread.append({
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: `c${index}`, toolName: 'create_shape', output: 'ok' }],
      })
    }
    // One request of twelve actions: the task closed after the tenth result, before the eleventh call.
    const items = await thread.items()
    const [transition, ...more] = automatic(items)
    expect(more).toHaveLength(0)
    expect(transition).toMatchObject({ reason: 'size-limit', fromLevel: 'task' })
    const seqOf = (id: string, type: 'tool-call' | 'tool-result') =>
      items.find(
        (item) =>
          item.type === 'message' &&
          item.content.some((part) => part.type === type && part.toolCallId === id),
      )!.seq
    expect(transition!.seq).toBeGreaterThan(seqOf('c9', 'tool-result'))
    expect(transition!.seq).toBeLessThan(seqOf('c10', 'tool-call'))
    expect(transitions).toHaveLength(1)
    // The task goes on at its level: the last two actions are in its fresh view.
    expect((await thread.status()).level).toBe('task')
    const view = await thread.view()
    expect(view.filter((item) => item.type === 'message' && item.role === 'assistant')).toHaveLength(2)
  })

  it('wait while a tool call has no result yet', async () => {
    const { thread } = await setup({ autoTransitions: { narrowest: { items: 3 } } })
    await thread.enter('project', { title: 'P' })
    await thread.enter('task', { title: 'T' })
    await thread.append({ role: 'user', content: 'search' })
    await thread.append({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'slow', toolName: 'search', input: {} }],
    })
    await thread.append({ role: 'user', content: 'are you there?' })
    expect(automatic(await thread.items())).toHaveLength(0)
    await thread.append({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'slow', toolName: 'search', output: 'found' }],
    })
    await thread.append({ role: 'user', content: 'and now?' })
    expect(automatic(await thread.items())).toHaveLength(1)
    // The call and its result stay together, in the closed part.
    const { messages } = await thread.context()
    expect(messages.some((message) => message.role === 'tool')).toBe(false)
  })

  it('are off by default', async () => {
    const { thread } = await setup({})
    await thread.enter('project', { title: 'P' })
    await thread.enter('task', { title: 'T' })
    for (let index = 0; index < 40; index++) {
      await thread.append({ role: index % 2 === 0 ? 'user' : 'assistant', content: `m${index}` })
    }
    expect(automatic(await thread.items())).toHaveLength(0)
    expect(await thread.view('task')).toHaveLength(41)
  })
})

describe('automatic transitions at a middle level', () => {
  it('close the project after an hour idle (time-limit), not before', async () => {
    const { thread, advance } = await setup({ autoTransitions: {} })
    await thread.enter('project', { title: 'Website' })
    await thread.append({ role: 'user', content: 'start' })
    await thread.append({ role: 'assistant', content: 'started' })
    advance(HOUR - 1)
    await thread.append({ role: 'user', content: 'still there' })
    await thread.append({ role: 'assistant', content: 'yes' })
    expect(automatic(await thread.items())).toHaveLength(0)
    advance(HOUR)
    await thread.append({ role: 'user', content: 'back after lunch' })
    const [transition] = automatic(await thread.items())
    expect(transition).toMatchObject({
      level: 'global',
      fromLevel: 'project',
      reason: 'time-limit',
      userFacingMessage: expect.stringContaining('idle past its time limit'),
    })
    expect(thread.level).toBe('project')
  })

  it('close the project at 30 requests', async () => {
    const { thread } = await setup({ autoTransitions: { middle: { items: 1_000 } } })
    await thread.enter('project', { title: 'P' })
    for (let index = 0; index < 30; index++) {
      await thread.append({ role: 'user', content: `request ${index}` })
      await thread.append({ role: 'assistant', content: `answer ${index}` })
    }
    expect(automatic(await thread.items())).toHaveLength(0)
    await thread.append({ role: 'user', content: 'request 30' })
    expect(automatic(await thread.items())).toMatchObject([{ reason: 'size-limit', fromLevel: 'project' }])
  })

  it('close a scope over its token limit with reason token-budget', async () => {
    const { thread } = await setup({
      autoTransitions: { narrowest: false, middle: false, maxScopeTokens: 200 },
    })
    await thread.enter('project', { title: 'P' })
    await thread.append({ role: 'user', content: 'short' })
    await thread.append({ role: 'assistant', content: 'word '.repeat(400) })
    await thread.append({ role: 'user', content: 'next' })
    expect(automatic(await thread.items())).toMatchObject([{ reason: 'token-budget' }])
  })
})

describe('the global context keeps the newest closed scopes', () => {
  it('shows the last keepScopes transitions and their summaries; the view keeps all', async () => {
    const { thread } = await setup({ autoTransitions: { keepScopes: 2 } })
    for (let index = 0; index < 4; index++) {
      await thread.enter('project', { title: `project ${index}` })
      await thread.append({ role: 'user', content: `work ${index}` })
      await thread.exit({ outcome: 'complete', summary: `summary ${index}` })
    }
    expect((await thread.view('global')).filter((item) => item.type === 'transition')).toHaveLength(4)
    const { messages } = await thread.context({ level: 'global' })
    const texts = messages.map((message) =>
      message.content.map((part) => ('text' in part ? part.text : '')).join(''),
    )
    expect(texts.some((text) => text.includes('summary 0') || text.includes('summary 1'))).toBe(false)
    expect(texts.filter((text) => text.includes('summary 2') || text.includes('summary 3'))).toHaveLength(2)
  })
})

describe('automatic transition options', () => {
  it('are checked: unknown limits, non-positive numbers', () => {
    const bad: CompactionOptions[] = [
      { autoTransitions: { narrowest: { item: 3 } as never } },
      { autoTransitions: { middle: { idleMs: 0 } } },
      { autoTransitions: { keepScopes: 0 } },
      { autoTransitions: { maxScopeTokens: 1.5 } },
      { autoTransitions: { narrowest: 'yes' as never } },
    ]
    for (const compaction of bad) {
      expect(() => createMemory({ compaction })).toThrowError(
        expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' }),
      )
    }
  })
})
