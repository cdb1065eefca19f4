import { describe, expect, it } from 'vitest'
import type { ContextMessage } from '../context'
import type { JsonValue, MessageInput } from '../items'
import { scopeTools } from '../scopes'
import { inMemoryStore } from '../stores'
import { createMemory } from './create-memory'
import type { Thread } from './thread'

// Regression: the user message that started a turn left the context once a scope was entered (the task
// view is only the run of task items at the end), and after an exit at the end of a turn the context
// could hold no user message at all. Every context now shows the turn's request.

const texts = (messages: readonly ContextMessage[]) =>
  messages.map((message) =>
    message.content.map((part) => (part.type === 'text' ? part.text : `<${part.type}>`)).join(''),
  )

/** A scope tool called as an adapter calls it: the assistant's call stored, the tool run, its result stored. */
async function callTool(
  thread: Thread,
  name: 'enter_scope' | 'exit_scope',
  input: Record<string, string>,
  id: string,
) {
  const tools = scopeTools(thread)
  await thread.append({
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: id, toolName: name, input }],
  })
  const output = await tools[name].execute(input)
  await thread.append({
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: id, toolName: name, output: output as unknown as JsonValue },
    ],
  })
  return output
}

async function newThread(threadId = 'request') {
  const store = inMemoryStore()
  const memory = createMemory({ store })
  return { store, memory, thread: await memory.thread(threadId) }
}

const request = 'Compare the two quotes and tell me which is cheaper.'

describe('the turn request is in view', () => {
  it('after enter_scope mid-turn, the task context shows the request, then the opening', async () => {
    const { thread } = await newThread()
    await thread.append({ role: 'user', content: request })
    await callTool(thread, 'enter_scope', { level: 'task', title: 'Quotes', instructions: 'A vs B.' }, 'c1')
    expect(thread.level).toBe('task')
    const { messages } = await thread.context({ system: 'You are careful.' })
    expect(texts(messages)).toEqual(['You are careful.', request, 'Task: Quotes\n\nA vs B.'])
    expect(messages[1]!.role).toBe('user')
    // The normative view is unchanged: the request is added by the context, not the view.
    expect(
      (await thread.view()).some((item) => item.type === 'message' && item.role === 'user' && !item.scope),
    ).toBe(false)
  })

  it('after enter() by the API mid-turn, the task context shows the request', async () => {
    const { thread } = await newThread()
    await thread.append({ role: 'user', content: request })
    await thread.enter('task', { title: 'Quotes' })
    await thread.append({ role: 'assistant', content: 'Looking at quote A.' })
    expect(texts((await thread.context()).messages)).toEqual([request, 'Task: Quotes', 'Looking at quote A.'])
  })

  it('after exit_scope at the end of a turn whose request was written inside the task, the parent context shows it', async () => {
    const { thread } = await newThread()
    await thread.append({ role: 'user', content: 'Start on the quotes.' })
    await callTool(thread, 'enter_scope', { level: 'task', title: 'Quotes' }, 'c1')
    await thread.append({ role: 'assistant', content: 'Entered.' })
    // The next turn's request is written inside the task…
    await thread.append({ role: 'user', content: request })
    await thread.append({ role: 'assistant', content: 'B is cheaper.' })
    // …and the model closes the task at the turn's end: the transition at global hides the task's items.
    await callTool(thread, 'exit_scope', { outcome: 'complete', summary: 'B is cheaper (105 vs 120).' }, 'c2')
    expect(thread.level).toBe('global')
    const shown = texts((await thread.context()).messages)
    expect(shown).toContain(request)
    // Where a model reads it as the current request: after the earlier turn, before the transition.
    expect(shown.indexOf(request)).toBeGreaterThan(shown.indexOf('Start on the quotes.'))
    expect(shown.indexOf(request)).toBeLessThan(shown.findIndex((text) => text.startsWith('[ACTIONS]')))
    expect(shown.at(-1)).toBe('[SUMMARY]: B is cheaper (105 vs 120).')
  })

  it('after exit() by the API mid-turn, the parent context shows the request once', async () => {
    const { thread } = await newThread()
    await thread.enter('project', { title: 'Site' })
    await thread.append({ role: 'user', content: request })
    await thread.enter('task', { title: 'Quotes' })
    await thread.append({ role: 'assistant', content: 'B.' })
    await thread.exit({ summary: 'B is cheaper.' })
    await thread.exit({ summary: 'Site done.' })
    const shown = texts((await thread.context()).messages)
    expect(shown.filter((text) => text === request)).toHaveLength(1)
  })

  it('with nested scopes entered by the tool, every level shows the request (previews too)', async () => {
    const { thread } = await newThread()
    await thread.append({ role: 'user', content: request })
    await callTool(thread, 'enter_scope', { level: 'project', title: 'Quotes' }, 'c1')
    await callTool(thread, 'enter_scope', { level: 'task', title: 'Quote A' }, 'c2')
    for (const level of ['global', 'project', 'task'] as const) {
      const shown = texts((await thread.context({ level })).messages)
      expect(
        shown.filter((text) => text === request),
        level,
      ).toHaveLength(1)
    }
    expect(texts((await thread.context()).messages)).toEqual([request, 'Task: Quote A'])
  })

  it('shows the request with its attachments', async () => {
    const { thread } = await newThread()
    const message: MessageInput = {
      role: 'user',
      content: [
        { type: 'text', text: 'What does this receipt say?' },
        { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
    }
    await thread.append(message)
    await callTool(thread, 'enter_scope', { level: 'task', title: 'Receipt' }, 'c1')
    const { messages } = await thread.context()
    expect(messages[0]).toEqual({ role: 'user', content: message.content })
  })

  it('shows only the newest request: a new user message ends the old turn', async () => {
    const { thread } = await newThread()
    await thread.append({ role: 'user', content: 'First request.' })
    await callTool(thread, 'enter_scope', { level: 'task', title: 'First' }, 'c1')
    await thread.append({ role: 'user', content: 'Second request.' })
    const shown = texts((await thread.context()).messages)
    expect(shown).toEqual(['Task: First', 'Second request.'])
  })

  it('after a rewind that archives the newest request, the context shows the request the log now ends with', async () => {
    const { thread } = await newThread()
    await thread.append({ role: 'user', content: 'First request.' })
    await callTool(thread, 'enter_scope', { level: 'task', title: 'First' }, 'c1')
    const [opening] = (await thread.items()).slice(-1)
    await thread.append({ role: 'user', content: 'Second request.' })
    await thread.rewind({ afterSeq: opening!.seq })
    expect(texts((await thread.context()).messages)).toEqual(['First request.', 'Task: First'])
  })

  it('under a small budget, the fit keeps the request with the opening, and a snapshot shows it', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store, compaction: { budget: { inputTokens: 600 } } })
    const thread = await memory.thread('tight')
    await thread.append({ role: 'user', content: request })
    await callTool(thread, 'enter_scope', { level: 'task', title: 'Quotes' }, 'c1')
    for (let step = 0; step < 6; step++) {
      const id = `fetch-${step}`
      await thread.append({
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: id, toolName: 'fetch_quote', input: { step } }],
      })
      await thread.append({
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: id, toolName: 'fetch_quote', output: `${step} `.repeat(300) },
        ],
      })
    }
    const { messages, stats } = await thread.context()
    expect(stats.contextTokens).toBeLessThanOrEqual(stats.inputBudget!)
    expect(stats.omittedItems).toBeGreaterThan(0)
    const shown = texts(messages)
    expect(shown).toContain(request)
    expect(shown).toContain('Task: Quotes')
    expect(await thread.snapshot()).toContain(request)
  })

  it('a reopened thread shows the same context', async () => {
    const { store, thread } = await newThread('again')
    await thread.append({ role: 'user', content: request })
    await callTool(thread, 'enter_scope', { level: 'task', title: 'Quotes' }, 'c1')
    const again = await createMemory({ store }).thread('again')
    expect((await again.context()).messages).toEqual((await thread.context()).messages)
  })
})
