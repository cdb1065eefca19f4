import { describe, expect, it } from 'vitest'
import type { ContextMessage } from '../context'
import type { JsonValue, UnsequencedItem } from '../items'
import { scopeTools } from '../scopes'
import { inMemoryStore } from '../stores'
import { createMemory } from './create-memory'
import type { Thread } from './thread'

// Regression: `enter_scope` wrote the opening, then its result at the call's broader level ended the
// narrower view, so a second opening was written worded "Task (continued): X" — the only one the model
// saw, for a brand-new scope. One scripted model read it and tried to enter the task again.

const texts = (messages: readonly ContextMessage[]) =>
  messages.map((message) => message.content.map((part) => (part.type === 'text' ? part.text : '')).join(''))

/** Openings shown, as their first line. */
const openings = (messages: readonly ContextMessage[]) =>
  texts(messages).filter((text) => /^(Project|Task)( \(continued\))?: /.test(text))

async function callTool(
  thread: Thread,
  name: 'enter_scope' | 'exit_scope',
  input: Record<string, string>,
  id: string,
) {
  await thread.append({
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: id, toolName: name, input }],
  })
  const output = await scopeTools(thread)[name].execute(input)
  await thread.append({
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: id, toolName: name, output: output as unknown as JsonValue },
    ],
  })
  return output
}

describe('one opening per scope, worded as new when the scope is new', () => {
  it('enter_scope: the task context shows one opening, "Task: X", and the model can work and exit', async () => {
    const store = inMemoryStore()
    const thread = await createMemory({ store }).thread('tool-enter')
    await thread.append({ role: 'user', content: 'Fix the login bug.' })
    await callTool(
      thread,
      'enter_scope',
      { level: 'task', title: 'Login bug', instructions: 'Find it.' },
      'c1',
    )
    const shown = openings((await thread.context()).messages)
    expect(shown).toEqual(['Task: Login bug\n\nFind it.'])
    // Entering again is what a model does when it believes it is not in the task yet: it never needs to.
    expect(thread.scopes.map((scope) => scope.title)).toEqual(['Login bug'])
    await thread.append({ role: 'assistant', content: 'Found it in auth.ts.' })
    expect(openings((await thread.context()).messages)).toEqual(['Task: Login bug\n\nFind it.'])
    // A thread opened from the store derives the same one open scope.
    const again = await createMemory({ store }).thread('tool-enter')
    expect(again.scopes).toEqual(thread.scopes)
    await callTool(again, 'exit_scope', { summary: 'Fixed in auth.ts.' }, 'c2')
    expect(again.level).toBe('global')
  })

  it('nested enter_scope calls: each level shows its own scope once, worded as new', async () => {
    const thread = await createMemory().thread('nested')
    await thread.append({ role: 'user', content: 'Build the site.' })
    await callTool(thread, 'enter_scope', { level: 'project', title: 'Site' }, 'c1')
    await callTool(thread, 'enter_scope', { level: 'task', title: 'Header' }, 'c2')
    expect(openings((await thread.context({ level: 'project' })).messages)).toEqual(['Project: Site'])
    expect(openings((await thread.context({ level: 'task' })).messages)).toEqual(['Task: Header'])
  })

  it('two enter_scope results stored one by one: still one opening, worded as new', async () => {
    const thread = await createMemory().thread('parallel')
    await thread.append({ role: 'user', content: 'Look it up, then work on it.' })
    await thread.append({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'a', toolName: 'search', input: {} },
        { type: 'tool-call', toolCallId: 'b', toolName: 'enter_scope', input: { level: 'task', title: 'T' } },
      ],
    })
    await scopeTools(thread).enter_scope.execute({ level: 'task', title: 'T' })
    await thread.append({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'search', output: 'hit' }],
    })
    await thread.append({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'b', toolName: 'enter_scope', output: 'ok' }],
    })
    expect(openings((await thread.context()).messages)).toEqual(['Task: T'])
  })

  it("after the long turn's enter_scope step is compacted away, the scope still shows one opening", async () => {
    const memory = createMemory({ compaction: { budget: { inputTokens: 2_000 } } })
    const thread = await memory.thread('compacted-step')
    await thread.append({ role: 'user', content: 'Research the four vendors.' })
    await callTool(thread, 'enter_scope', { level: 'project', title: 'Vendors' }, 'c1')
    for (const vendor of ['a', 'b', 'c', 'd']) {
      // The adapter's model call: the context, then the usage the provider reports (compaction follows).
      const { stats } = await thread.context()
      await thread.reportUsage({ inputTokens: stats.contextTokens })
      await thread.append({
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: vendor, toolName: 'fetch_vendor', input: { vendor } }],
      })
      await thread.append({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: vendor,
            toolName: 'fetch_vendor',
            output: `${vendor} `.repeat(3_000),
          },
        ],
      })
    }
    await thread.settled()
    // The enter_scope call and its result (the broader item between the two openings) were archived.
    const active = await thread.items()
    expect(active.some((item) => JSON.stringify(item).includes('"c1"'))).toBe(false)
    expect(openings((await thread.context()).messages)).toEqual(['Project: Vendors'])
  })

  it('a late result after the scope had steps of its own reopens it as continued', async () => {
    const thread = await createMemory().thread('late')
    await thread.append({ role: 'user', content: 'go' })
    await thread.append({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'slow', toolName: 'search', input: {} }],
    })
    await thread.enter('task', { title: 'T' })
    await thread.append({ role: 'assistant', content: 'A step the model saw inside the task.' })
    await thread.append({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'slow', toolName: 'search', output: 'hit' }],
    })
    expect(openings((await thread.context()).messages)).toEqual(['Task (continued): T'])
  })

  it('an automatic transition that summarized the start reopens the scope as continued', async () => {
    const memory = createMemory({ compaction: { autoTransitions: { narrowest: { items: 4 } } } })
    const thread = await memory.thread('auto')
    await thread.append({ role: 'user', content: 'start' })
    await callTool(thread, 'enter_scope', { level: 'task', title: 'Long' }, 'c1')
    for (let step = 0; step < 5; step++) await thread.append({ role: 'assistant', content: `step ${step}` })
    await thread.append({ role: 'user', content: 'next' })
    const shown = openings((await thread.context()).messages)
    expect(shown).toEqual(['Task (continued): Long'])
  })

  it('a thread written before this change (doubled openings) reads and continues as it is', async () => {
    const store = inMemoryStore()
    const base = { ts: 1, turnId: 'turn_0001', type: 'message' as const }
    // What enter_scope wrote until now: the opening, the result at the call's level, a "continued" reopening.
    const old: UnsequencedItem[] = [
      { ...base, id: 'u1', level: 'global', role: 'user', content: [{ type: 'text', text: 'Fix it.' }] },
      {
        ...base,
        id: 'a1',
        level: 'global',
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'c1',
            toolName: 'enter_scope',
            input: { level: 'task', title: 'Bug' },
          },
        ],
      },
      {
        ...base,
        id: 'o1',
        level: 'task',
        role: 'user',
        content: [{ type: 'text', text: 'Task: Bug' }],
        scope: { title: 'Bug' },
      },
      {
        ...base,
        id: 'r1',
        level: 'global',
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'enter_scope', output: 'ok' }],
      },
      {
        ...base,
        id: 'o2',
        level: 'task',
        role: 'user',
        content: [{ type: 'text', text: 'Task (continued): Bug' }],
        scope: { title: 'Bug', continuedFrom: 3 },
      },
    ]
    await store.append('legacy', old, { expectedSeq: 0 })
    const thread = await createMemory({ store }).thread('legacy')
    expect(thread.scopes).toEqual([{ level: 'task', title: 'Bug', seq: 3 }])
    const { messages } = await thread.context()
    // Read as it was stored (no rewrite), with the request in view.
    expect(texts(messages)).toEqual(['Fix it.', 'Task (continued): Bug'])
    await thread.append({ role: 'assistant', content: 'Fixed.' })
    const { transition } = await thread.exit({ summary: 'Fixed.' })
    expect(transition.range.fromSeq).toBe(3)
    expect(thread.level).toBe('global')
    expect((await store.read('legacy')).slice(0, 5).map((item) => item.id)).toEqual([
      'u1',
      'a1',
      'o1',
      'r1',
      'o2',
    ])
  })
})
