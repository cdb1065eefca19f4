import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import type { MessageItem, TransitionItem } from '../items'
import { inMemoryStore } from '../stores'
import { createMemory } from './create-memory'

const code = (value: string) => expect.objectContaining({ code: value })

const call = (id: string, toolName = 'create_shape', input: object = { id }) => ({
  role: 'assistant' as const,
  content: [{ type: 'tool-call' as const, toolCallId: id, toolName, input: input as never }],
})
const result = (id: string, output: unknown = 'ok', toolName = 'create_shape') => ({
  role: 'tool' as const,
  content: [{ type: 'tool-result' as const, toolCallId: id, toolName, output: output as never }],
})

describe('thread.append', () => {
  it('assigns seqs, levels and turns: a user message starts a turn', async () => {
    const memory = createMemory()
    const thread = await memory.thread('turns')
    const items = await thread.append([
      { role: 'system', content: 'You draw.' },
      { role: 'user', content: 'Draw a house' },
      { role: 'assistant', content: 'Sure.' },
      { role: 'user', content: 'And a tree' },
    ])
    expect(items.map((item) => [item.seq, item.level, item.turnId])).toEqual([
      [1, 'global', 'turn_0000'],
      [2, 'global', 'turn_0001'],
      [3, 'global', 'turn_0001'],
      [4, 'global', 'turn_0002'],
    ])
    expect(items[1]!.content).toEqual([{ type: 'text', text: 'Draw a house' }])
  })

  it('keeps meta and caller ids verbatim', async () => {
    const thread = await createMemory().thread('meta')
    const meta = { ui: { id: 'msg_1', parts: [1, 'two', { three: null }] }, ünï: '✓' }
    const [stored] = await thread.append({ role: 'user', content: 'hi', id: 'my-id', meta })
    expect(stored!.id).toBe('my-id')
    expect(stored!.meta).toEqual(meta)
    const [read] = await thread.items()
    expect(read!.meta).toEqual(meta)
  })

  it('gives a tool result the level and turn of its call, even after a new turn and a scope change', async () => {
    const memory = createMemory()
    const thread = await memory.thread('late-result')
    await thread.enter('project', { title: 'Garden' })
    await thread.enter('task', { title: 'Tree' })
    await thread.append([{ role: 'user', content: 'Plant a tree' }, call('c1')])
    await thread.exit({ summary: 'done' })
    await thread.append({ role: 'user', content: 'next' })
    const [late] = await thread.append(result('c1'))
    expect(late!.level).toBe('task')
    expect(late!.turnId).toBe('turn_0001')
    const interactions = await thread.toolInteractions()
    expect(interactions).toEqual([
      expect.objectContaining({ toolCallId: 'c1', status: 'success', level: 'task', turnId: 'turn_0001' }),
    ])
  })

  it('rejects a tool result whose call the thread never saw, storing nothing', async () => {
    const thread = await createMemory().thread('orphan')
    await thread.append({ role: 'user', content: 'hi' })
    await expect(thread.append([{ role: 'assistant', content: 'ok' }, result('nope')])).rejects.toThrow(
      code('STRATA_UNKNOWN_TOOL_CALL'),
    )
    expect(await thread.items()).toHaveLength(1)
  })

  it('rejects duplicate ids, storing nothing', async () => {
    const thread = await createMemory().thread('dupes')
    await thread.append({ role: 'user', content: 'a', id: 'x' })
    await expect(
      thread.append([
        { role: 'user', content: 'b' },
        { role: 'user', content: 'c', id: 'x' },
      ]),
    ).rejects.toThrow(code('STRATA_DUPLICATE_ITEM_ID'))
    expect(await thread.items()).toHaveLength(1)
  })

  it.each([
    ['a role that does not exist', { role: 'robot', content: 'x' }],
    ['content that is a number', { role: 'user', content: 42 }],
    ['a part of unknown type', { role: 'user', content: [{ type: 'video', url: 'x' }] }],
    [
      'a tool call in a user message',
      { role: 'user', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'b', input: {} }] },
    ],
    ['text in a tool message', { role: 'tool', content: [{ type: 'text', text: 'x' }] }],
    ['meta that is an array', { role: 'user', content: 'x', meta: [1] }],
  ])('rejects %s as STRATA_INVALID_MESSAGE', async (_, message) => {
    const thread = await createMemory().thread('invalid')
    await expect(thread.append(message as never)).rejects.toThrow(code('STRATA_INVALID_MESSAGE'))
    expect(await thread.items()).toEqual([])
  })
})

describe('scopes: enter and exit', () => {
  it('enter writes an opening item at the new level that broader views do not see', async () => {
    const thread = await createMemory().thread('enter')
    await thread.append({ role: 'user', content: 'hello' })
    await thread.enter('project', { title: 'Garden', instructions: 'Plan the garden.' })
    await thread.enter('task', { title: 'Tree' })
    expect(thread.level).toBe('task')
    expect(thread.scopes.map((scope) => [scope.level, scope.title])).toEqual([
      ['project', 'Garden'],
      ['task', 'Tree'],
    ])
    const [opening] = await thread.view('task')
    expect(opening).toMatchObject({ type: 'message', role: 'user', level: 'task', scope: { title: 'Tree' } })
    expect((await thread.view('project')).map((item) => (item as MessageItem).scope?.title)).toEqual([
      'Garden',
    ])
    expect((await thread.view('global')).map((item) => item.type)).toEqual(['message'])
    // The context adds the turn's request before the opening (the view above does not hold it).
    const { messages } = await thread.context({ level: 'project' })
    expect(messages[0]!.content[0]).toEqual({ type: 'text', text: 'hello' })
    expect(messages[1]!.content[0]).toEqual({ type: 'text', text: 'Project: Garden\n\nPlan the garden.' })
  })

  it('exit writes a transition and a scope summary at the parent level', async () => {
    const memory = createMemory()
    const events: unknown[] = []
    memory.on('transition', (event) => events.push(event))
    const thread = await memory.thread('exit')
    await thread.enter('project', { title: 'Garden' })
    await thread.enter('task', { title: 'Tree' })
    for (const id of ['a', 'b', 'c']) await thread.append([call(id), result(id)])
    const { transition, summary } = await thread.exit()
    expect(transition).toMatchObject({
      type: 'transition',
      level: 'project',
      fromLevel: 'task',
      reason: 'task-complete',
      agentFacingMessage: '[ACTIONS]: <3 task actions filtered for brevity>',
      userFacingMessage: 'Task "Tree" completed.',
      range: { fromSeq: 2, toSeq: 8 },
    })
    expect(summary).toMatchObject({ type: 'summary', tier: 'scope', level: 'project' })
    expect(summary.text).toContain('3 create_shape')
    expect(summary.text).toContain('Outcome: task "Tree" completed')
    expect(thread.level).toBe('project')
    expect((await thread.view('project')).map((item) => item.type)).toEqual([
      'message',
      'transition',
      'summary',
    ])
    expect(events).toEqual([
      expect.objectContaining({ threadId: 'exit', transition, summary, summarizer: 'pattern' }),
    ])
  })

  it('exit takes an explicit summary, texts, reason and outcome', async () => {
    const thread = await createMemory().thread('exit-options')
    await thread.enter('project', { title: 'Garden' })
    const { transition, summary } = await thread.exit({
      outcome: 'cancelled',
      summary: 'Nothing planted.',
      userFacingMessage: null,
      agentFacingMessage: 'Project cancelled by the user.',
    })
    expect(transition).toMatchObject({ reason: 'cancelled', userFacingMessage: null, level: 'global' })
    expect(transition.agentFacingMessage).toBe('Project cancelled by the user.')
    expect(summary.text).toBe('Nothing planted.')
  })

  it('falls back to the pattern summarizer when the configured one fails', async () => {
    const failing = { name: 'llm', summarize: async () => Promise.reject(new Error('model down')) }
    const memory = createMemory({ summarizer: failing })
    const events: { summarizer: string; summarizerError?: unknown }[] = []
    memory.on('transition', (event) => events.push(event))
    const thread = await memory.thread('fallback')
    await thread.enter('project', { title: 'P' })
    const { summary } = await thread.exit()
    expect(summary.text).toContain('Outcome: project "P" completed')
    expect(events[0]!.summarizer).toBe('pattern')
    expect(events[0]!.summarizerError).toBeInstanceOf(Error)
  })

  it('exit with nothing open, or naming the wrong level, is a typed error and writes nothing', async () => {
    const thread = await createMemory().thread('exit-errors')
    await expect(thread.exit()).rejects.toThrow(code('STRATA_NO_OPEN_SCOPE'))
    await thread.enter('project', { title: 'P' })
    await expect(thread.exit({ level: 'task' })).rejects.toThrow(code('STRATA_SCOPE_MISMATCH'))
    await expect(thread.exit({ outcome: 'done' as never })).rejects.toThrow(code('STRATA_INVALID_OPTIONS'))
    expect(await thread.items()).toHaveLength(1)
    expect(thread.level).toBe('project')
  })

  it('enter must go to a narrower level and needs a title', async () => {
    const thread = await createMemory().thread('enter-errors')
    await expect(thread.enter('global', { title: 'G' })).rejects.toThrow(code('STRATA_INVALID_SCOPE'))
    await expect(thread.enter('project', { title: ' ' })).rejects.toThrow(code('STRATA_INVALID_OPTIONS'))
    await expect(thread.enter('sprint' as never, { title: 'S' })).rejects.toThrow(
      code('STRATA_INVALID_LEVEL'),
    )
    expect(await thread.items()).toEqual([])
  })

  it('a reopened thread recovers its open scopes, turn and level from the store', async () => {
    const store = inMemoryStore()
    const first = await createMemory({ store }).thread('reopen')
    await first.append({ role: 'user', content: 'one' })
    await first.enter('project', { title: 'P' })
    await first.enter('task', { title: 'T' })
    await first.append(call('c1'))
    const again = await createMemory({ store }).thread('reopen')
    expect(again.level).toBe('task')
    expect(again.scopes.map((scope) => scope.title)).toEqual(['P', 'T'])
    const [late] = await again.append(result('c1'))
    expect(late!.turnId).toBe('turn_0001')
    const [next] = await again.append({ role: 'user', content: 'two' })
    expect(next!.turnId).toBe('turn_0002')
  })
})

describe('modes', () => {
  it('maps modes to levels by entering and exiting scopes', async () => {
    const memory = createMemory()
    const thread = await memory.thread('modes')
    await thread.setMode('orchestrating', { title: 'Garden project' })
    expect(thread.level).toBe('project')
    await thread.setMode('working-solo', { title: 'Plant the tree' })
    expect(thread.level).toBe('task')
    expect(thread.mode).toBe('working-solo')
    await thread.setMode('orchestrating')
    expect(thread.level).toBe('project')
    const transitions = (await thread.items()).filter(
      (item) => item.type === 'transition',
    ) as TransitionItem[]
    expect(transitions.map((item) => item.fromLevel)).toEqual(['task'])
    expect((await memory.thread('modes')).mode).toBe('orchestrating')
  })

  it('custom modes for a custom ladder; unknown modes are typed errors', async () => {
    const memory = createMemory({
      levels: ['global', 'session', 'interaction'],
      modes: { chatting: 'session', answering: 'interaction' },
    })
    const thread = await memory.thread('custom-modes')
    await thread.setMode('answering', { title: 'Q1' })
    expect(thread.level).toBe('interaction')
    await expect(thread.setMode('orchestrating')).rejects.toThrow(code('STRATA_UNKNOWN_MODE'))
    expect(() => createMemory({ levels: ['a', 'b'], modes: { x: 'c' as never } })).toThrow(
      code('STRATA_INVALID_LEVEL'),
    )
  })
})

describe('concurrent writers', () => {
  it('two memories on one store interleave without losing or duplicating items', async () => {
    const store = inMemoryStore()
    const one = await createMemory({ store }).thread('shared')
    const two = await createMemory({ store }).thread('shared')
    await Promise.all([
      ...Array.from({ length: 10 }, (_, index) => one.append({ role: 'user', content: `one ${index}` })),
      ...Array.from({ length: 10 }, (_, index) => two.append({ role: 'user', content: `two ${index}` })),
    ])
    const items = await store.read('shared')
    expect(items.map((item) => item.seq)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1))
    expect(new Set(items.map((item) => item.id)).size).toBe(20)
    expect(new Set(items.map((item) => item.turnId)).size).toBe(20)
  })

  it('gives up with STRATA_SEQ_CONFLICT when the store keeps conflicting', async () => {
    const store = inMemoryStore()
    const conflicting = {
      ...store,
      append: async () => {
        throw new StrataError({ code: 'STRATA_SEQ_CONFLICT', message: 'always' })
      },
    }
    const thread = await createMemory({ store: conflicting }).thread('stuck')
    await expect(thread.append({ role: 'user', content: 'x' })).rejects.toThrow(code('STRATA_SEQ_CONFLICT'))
  })
})

describe('status and usage', () => {
  it('reports counts, scopes and the last usage beside the estimate', async () => {
    const thread = await createMemory().thread('status')
    await thread.enter('project', { title: 'P' })
    await thread.append([{ role: 'user', content: 'hi' }, call('a'), result('a')])
    const { stats } = await thread.context()
    await thread.reportUsage({ inputTokens: 123, outputTokens: 7 })
    const status = await thread.status()
    expect(status).toMatchObject({
      threadId: 'status',
      level: 'project',
      lastSeq: 4,
      turnId: 'turn_0001',
      items: { active: 4, archived: 0, byLevel: { project: 4 }, byType: { message: 4 } },
      store: { name: 'memory', persistent: false, shared: false },
      lastUsage: { inputTokens: 123, outputTokens: 7, estimatedTokens: stats.contextTokens },
    })
    await expect(thread.reportUsage({ inputTokens: -1 })).rejects.toThrow(code('STRATA_INVALID_OPTIONS'))
  })
})

describe('views are read-only', () => {
  it('an item from a view cannot be changed, so the log stays as stored', async () => {
    const thread = await createMemory().thread('frozen')
    await thread.append({ role: 'user', content: 'original', meta: { tags: ['a'] } })
    const [item] = (await thread.view()) as MessageItem[]
    expect(() => {
      ;(item!.content[0] as { text: string }).text = 'changed'
    }).toThrow(TypeError)
    expect(() => (item!.meta!.tags as string[]).push('b')).toThrow(TypeError)
    const { messages } = await thread.context()
    expect(messages[0]!.content[0]).toEqual({ type: 'text', text: 'original' })
  })

  it("a context's parts are frozen, its messages and part lists the caller's", async () => {
    const thread = await createMemory().thread('frozen-context')
    await thread.append({
      role: 'user',
      content: [{ type: 'text', text: 'original', meta: { tags: ['a'] } }],
    })
    const { messages } = await thread.context()
    const part = messages[0]!.content[0] as unknown as { text: string; meta: { tags: string[] } }
    expect(() => {
      part.text = 'changed'
    }).toThrow(TypeError)
    expect(() => part.meta.tags.push('b')).toThrow(TypeError)
    messages[0]!.content.push({ type: 'text', text: 'added' })
    messages[0]!.role = 'assistant'
    messages.pop()
    const again = await thread.context()
    expect(again.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'original', meta: { tags: ['a'] } }] },
    ])
  })
})
