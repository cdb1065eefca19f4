import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import type { Item, MessageInput, MessageItem } from '../items'
import { createMemory, followHistory } from '../memory'

const user = (text: string): MessageInput => ({ role: 'user', content: text })
const assistant = (text: string): MessageInput => ({ role: 'assistant', content: text })
const call = (toolCallId: string): MessageInput => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId, toolName: 'lookup', input: { id: toolCallId } }],
})
const result = (toolCallId: string): MessageInput => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId, toolName: 'lookup', output: `found ${toolCallId}` }],
})

// Seqs 1–10: Q1 A1 Q2 (call, result) A2 Q3 A3 Q4 A4.
const stored = [
  user('Q1'),
  assistant('A1'),
  user('Q2'),
  call('c2'),
  result('c2'),
  assistant('A2'),
  user('Q3'),
  assistant('A3'),
  user('Q4'),
  assistant('A4'),
]

async function storedThread(id: string) {
  const memory = createMemory()
  const thread = await memory.thread(id)
  await thread.append(stored)
  return { memory, thread }
}

const messagesOf = (items: readonly Item<string>[]) =>
  items.filter((item): item is MessageItem<string> => item.type === 'message')
const texts = (items: readonly MessageItem<string>[]) =>
  items.map((item) => item.content.map((part) => (part.type === 'text' ? part.text : part.type)).join(''))

describe('thread.divergence() of a partial history (its start replaced by another middleware)', () => {
  // A fork from the checkpoint after A3 whose older messages a summary replaced: Q2 … A3, then new.
  const forked = [...stored.slice(2, 8), user('New')]

  it('finds the point where the kept tail ends; without partial the list is no divergence anyone can tell', async () => {
    const { thread } = await storedThread('partial-fork')
    expect(await thread.divergence(forked, { partial: true })).toEqual({
      afterSeq: 8,
      lastKeptSeq: 8,
      dropped: 2,
      matched: 6,
      lastSeq: 10,
    })
    expect(await thread.divergence(forked)).toBeUndefined()
    expect(await thread.divergence(forked, { history: 'full' })).toBeUndefined()
  })

  it('one kept answer is enough (a compact state holds the shown context, then the answer)', async () => {
    const { thread } = await storedThread('partial-one')
    expect(await thread.divergence([assistant('A3'), user('New')], { partial: true })).toMatchObject({
      afterSeq: 8,
      dropped: 2,
      matched: 1,
    })
    expect(await thread.divergence([assistant('A3'), user('New')])).toBeUndefined()
  })

  it('finds none for a partial list that continues the thread, or whose kept messages do not all match', async () => {
    const { thread } = await storedThread('partial-none')
    expect(await thread.divergence([...stored.slice(6), user('New')], { partial: true })).toBeUndefined()
    expect(await thread.divergence([assistant('A4'), user('New')], { partial: true })).toBeUndefined()
    expect(
      await thread.divergence([user('Q3 edited'), assistant('A3'), user('New')], { partial: true }),
    ).toBeUndefined()
    expect(await thread.divergence([user('Other'), user('New')], { partial: true })).toBeUndefined()
  })

  it('refuses a partial that is not a boolean', async () => {
    const { thread } = await storedThread('partial-bad')
    const error = await thread
      .divergence(forked, { partial: 'yes' as unknown as boolean })
      .catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')).toBe(true)
  })
})

describe('followHistory() with partial', () => {
  it('rewinds a fork of a partial history and stores its new message after the kept tail', async () => {
    const { thread } = await storedThread('follow-partial')
    const appended = await followHistory(thread, [...stored.slice(2, 8), user('New')], { partial: true })
    expect(texts(appended)).toEqual(['New'])
    const items = messagesOf(await thread.items())
    expect(texts(items)).toEqual(['Q1', 'A1', 'Q2', 'tool-call', 'tool-result', 'A2', 'Q3', 'A3', 'New'])
    expect((await thread.status()).items.archived).toBe(2)
  })

  it('goes on without a rewind when the partial history continues the thread', async () => {
    const { thread } = await storedThread('follow-partial-continues')
    await followHistory(thread, [...stored.slice(4), user('Q5')], { partial: true })
    // The answer to Q5 as the framework re-sends it (the model's, stored here by the list), then Q6.
    await followHistory(thread, [assistant('A4'), user('Q5'), assistant('A5'), user('Q6')], { partial: true })
    const items = messagesOf(await thread.items())
    expect(texts(items).slice(-5)).toEqual(['Q4', 'A4', 'Q5', 'A5', 'Q6'])
    expect((await thread.status()).items.archived).toBe(0)
  })

  it('without partial, the same fork is refused with no-divergence-point and stores nothing', async () => {
    const { thread } = await storedThread('follow-whole')
    const error = await followHistory(thread, [...stored.slice(2, 8), user('New')]).catch(
      (caught: unknown) => caught,
    )
    expect(StrataError.isInstance(error, 'STRATA_INVALID_MESSAGE')).toBe(true)
    expect((error as StrataError).details).toMatchObject({ reason: 'no-divergence-point' })
    expect((await thread.status()).lastSeq).toBe(10)
  })
})
