import { describe, expect, it } from 'vitest'
import type { ContextMessage } from '../context'
import { inMemoryStore } from '../stores'
import { RESOURCE_METHODS } from '../stores/store-check'
import { tokenEstimator } from '../tokens'
import { createMemory } from './create-memory'

const textOf = (message: ContextMessage) => {
  const [part] = message.content
  return part?.type === 'text' ? part.text : ''
}
const slot = (messages: readonly ContextMessage[], tag: string) =>
  messages.map(textOf).find((text) => text.startsWith(tag))

describe('the working-memory slot', () => {
  it('follows the system prompt with its version; the template stands in before the first write', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store, resources: { workingMemory: { template: '# User\n- Name:' } } })
    const thread = await memory.thread('chat-1', { resource: 'user-1' })
    await thread.append({ role: 'user', content: 'hello' })
    let { messages } = await thread.context({ system: 'Be brief.' })
    expect(textOf(messages[0]!)).toBe('Be brief.')
    expect(textOf(messages[1]!)).toBe('[MEMORY:WORKING version=0]\n# User\n- Name:')
    // Written by another memory (another process): the next context shows it.
    await createMemory({ store }).resource('user-1').setWorkingMemory({ name: 'Ana' }, { version: 0 })
    ;({ messages } = await thread.context({ system: 'Be brief.' }))
    expect(textOf(messages[1]!)).toBe('[MEMORY:WORKING version=1]\n{"name":"Ana"}')
    // A thread without a resource shows none.
    const loose = await memory.thread('loose')
    await loose.append({ role: 'user', content: 'hello' })
    expect(slot((await loose.context()).messages, '[MEMORY:WORKING')).toBeUndefined()
  })

  it('is counted in the context tokens and the total, and bounded by maxTokens when stored longer', async () => {
    const store = inMemoryStore()
    const counter = tokenEstimator()
    const writer = createMemory({ store, resources: { workingMemory: { maxTokens: 5_000 } } })
    await writer.resource('user-1').setWorkingMemory('fact '.repeat(1_000), { version: 0 })
    const memory = createMemory({ store, resources: { workingMemory: { maxTokens: 100 } } })
    const thread = await memory.thread('chat-1', { resource: 'user-1' })
    await thread.append({ role: 'user', content: 'hello' })
    const withSlot = await thread.context()
    const shown = slot(withSlot.messages, '[MEMORY:WORKING version=1]')!
    const body = shown.slice(shown.indexOf('\n') + 1)
    expect(body).toMatch(/\[cut: working memory over its token limit\]$/)
    expect(counter.count(body)).toBeLessThanOrEqual(100)
    expect(counter.count(body)).toBeGreaterThan(80)
    const loose = await memory.thread('loose')
    await loose.append({ role: 'user', content: 'hello' })
    const without = await loose.context()
    const slotTokens = withSlot.stats.contextTokens - without.stats.contextTokens
    expect(slotTokens).toBeGreaterThan(80)
    expect(withSlot.stats.totalTokens - without.stats.totalTokens).toBe(slotTokens)
  })

  it('keeps a budgeted context within its budget: the slots go before anything the context must keep', async () => {
    const memory = createMemory({
      resources: { workingMemory: { maxTokens: 400 }, recall: { limit: 5 } },
      compaction: { budget: { maxContextTokens: 1_300, maxOutputTokens: 500, safetyMargin: 0 } },
    })
    const user = memory.resource('user-1')
    await user.setWorkingMemory('The user is Ana, who likes lentil soup. '.repeat(30), { version: 0 })
    const other = await memory.thread('chat-0', { resource: 'user-1' })
    await other.append({ role: 'user', content: 'lentil soup recipe with cumin '.repeat(20) })
    const thread = await memory.thread('chat-1', { resource: 'user-1' })
    for (let turn = 0; turn < 6; turn++) {
      await thread.append({
        role: 'user',
        content: `question ${turn} about lentil soup ${'and more words '.repeat(10)}`,
      })
      await thread.append({ role: 'assistant', content: `answer ${turn} ${'with some detail '.repeat(10)}` })
    }
    const { messages, stats } = await thread.context()
    expect(stats.contextTokens).toBeLessThanOrEqual(stats.inputBudget!)
    expect(slot(messages, '[MEMORY:WORKING version=1]')).toBeDefined()
    expect(slot(messages, '[MEMORY:RECALL]')).toContain('chat-0#1')
    // A request alone near the budget: the slots leave, the context still fits.
    const request = `lentil ${'long request '.repeat(300)}`
    await thread.append({ role: 'user', content: request })
    const tight = await thread.context()
    expect(tight.stats.contextTokens).toBeLessThanOrEqual(tight.stats.inputBudget!)
    // The working memory (about 300 tokens) has no room beside the request; the short recall has.
    expect(slot(tight.messages, '[MEMORY:WORKING')).toBeUndefined()
    expect(slot(tight.messages, '[MEMORY:RECALL]')).toContain('chat-0#1')
    expect(textOf(tight.messages.at(-1)!)).toMatch(/^lentil long request/)
  })
})

describe('the recall slot', () => {
  it("shows the best matches of the turn's request from the resource's other threads, not its own nor another resource's", async () => {
    const memory = createMemory({ resources: { recall: { limit: 2 } } })
    const soup = await memory.thread('chat-soup', { resource: 'user-1' })
    await soup.append({ role: 'user', content: 'My favourite is lentil soup with cumin.' })
    const travel = await memory.thread('chat-travel', { resource: 'user-1' })
    await travel.append({ role: 'user', content: 'Book the kayak trip to Norway.' })
    const stranger = await memory.thread('chat-bob', { resource: 'user-2' })
    await stranger.append({ role: 'user', content: 'Bob wants lentil soup and a kayak.' })
    const thread = await memory.thread('chat-new', { resource: 'user-1' })
    await thread.append({ role: 'user', content: 'Any lentil soup ideas?' })
    await thread.append({ role: 'assistant', content: 'Let me think about lentil soup.' })
    const recall = slot((await thread.context()).messages, '[MEMORY:RECALL]')!
    expect(recall.split('\n')).toEqual([
      '[MEMORY:RECALL]',
      '- (chat-soup#1) My favourite is lentil soup with cumin.',
    ])
    // Without the option, no recall slot.
    const plain = createMemory({ store: memory.store })
    const reopened = await plain.thread('chat-new')
    expect(slot((await reopened.context()).messages, '[MEMORY:RECALL]')).toBeUndefined()
  })

  it('is computed once per turn: a new request recalls anew', async () => {
    const memory = createMemory({ resources: { recall: { limit: 3 } } })
    const soup = await memory.thread('chat-soup', { resource: 'user-1' })
    await soup.append({ role: 'user', content: 'lentil soup with cumin' })
    const thread = await memory.thread('chat-new', { resource: 'user-1' })
    await thread.append({ role: 'user', content: 'lentil soup again?' })
    const first = slot((await thread.context()).messages, '[MEMORY:RECALL]')
    // Written in another thread during the turn: this turn's recall stays as it was.
    await soup.append({ role: 'user', content: 'lentil soup is best with lemon' })
    expect(slot((await thread.context()).messages, '[MEMORY:RECALL]')).toBe(first)
    await thread.append({ role: 'assistant', content: 'Sure.' })
    expect(slot((await thread.context()).messages, '[MEMORY:RECALL]')).toBe(first)
    await thread.append({ role: 'user', content: 'and the lemon?' })
    const next = slot((await thread.context()).messages, '[MEMORY:RECALL]')!
    expect(next).toContain('best with lemon')
  })
})

describe('a thread without a resource', () => {
  it('looks at none of the store’s resource methods when it appends and builds contexts', async () => {
    const read: string[] = []
    let counting = false
    const store = new Proxy(inMemoryStore(), {
      get(target, name, receiver) {
        if (counting && typeof name === 'string') read.push(name)
        return Reflect.get(target, name, receiver)
      },
    })
    const memory = createMemory({ store })
    const thread = await memory.thread('loose')
    counting = true
    await thread.append({ role: 'user', content: 'hello' })
    await thread.context()
    await thread.append({ role: 'assistant', content: 'hi' })
    counting = false
    expect(read).toContain('append')
    expect(read.filter((name) => (RESOURCE_METHODS as readonly string[]).includes(name))).toEqual([])
  })
})
