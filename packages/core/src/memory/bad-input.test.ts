import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { inMemoryStore } from '../stores'
import { createMemory } from './create-memory'

const code = (value: string) => expect.objectContaining({ code: value })

/** Everything a store holds for a thread, to prove a rejected call changed nothing. */
async function snapshot(store: ReturnType<typeof inMemoryStore>, threadId: string) {
  return {
    threads: await store.listThreads(),
    head: await store.head(threadId),
    items: await store.read(threadId),
    archive: await store.readArchive(threadId),
    state: await store.getState(threadId),
  }
}

async function seeded() {
  const store = inMemoryStore()
  const memory = createMemory({ store })
  const thread = await memory.thread('victim')
  await thread.append([
    { role: 'user', content: 'keep me' },
    { role: 'assistant', content: 'kept' },
  ])
  return { store, memory, thread, before: await snapshot(store, 'victim') }
}

describe('bad input is a typed error and leaves the store exactly as it was', () => {
  it.each([
    ['a parent path', '../x'],
    ['a slash', 'a/b'],
    ['braces', '{x}'],
    ['an empty id', ''],
    ['129 characters', 'a'.repeat(129)],
    ['a leading dot', '.hidden'],
    ['a space', 'a b'],
    ['a non-string', 42],
  ])('thread id with %s is STRATA_INVALID_THREAD_ID', async (_, threadId) => {
    const { store, memory, before } = await seeded()
    await expect(memory.thread(threadId as string)).rejects.toThrow(code('STRATA_INVALID_THREAD_ID'))
    await expect(memory.deleteThread(threadId as string)).rejects.toThrow(code('STRATA_INVALID_THREAD_ID'))
    expect(await snapshot(store, 'victim')).toEqual(before)
  })

  it('accepts the longest and the most varied valid ids', async () => {
    const memory = createMemory()
    for (const threadId of ['a'.repeat(128), 'user-42.chat-7', 'A_b.C-d', '0']) {
      await expect(memory.thread(threadId)).resolves.toMatchObject({ id: threadId })
    }
  })

  it('unknown levels are STRATA_INVALID_LEVEL for view, context, enter and exit', async () => {
    const { store, thread, before } = await seeded()
    await expect(thread.view('sprint' as never)).rejects.toThrow(code('STRATA_INVALID_LEVEL'))
    await expect(thread.context({ level: 'sprint' as never })).rejects.toThrow(code('STRATA_INVALID_LEVEL'))
    await expect(thread.enter('sprint' as never, { title: 'x' })).rejects.toThrow(
      code('STRATA_INVALID_LEVEL'),
    )
    await expect(thread.exit({ level: 'sprint' as never })).rejects.toThrow(code('STRATA_INVALID_LEVEL'))
    expect(await snapshot(store, 'victim')).toEqual(before)
  })

  const cyclic: Record<string, unknown> = { name: 'loop' }
  cyclic.self = cyclic
  it.each([
    [
      'a cycle in tool input',
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: cyclic }] },
    ],
    ['a BigInt in meta', { role: 'user', content: 'x', meta: { n: 10n } }],
    [
      'a function in a tool result',
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: { f: () => 1 } }],
      },
    ],
    ['a symbol', { role: 'user', content: 'x', meta: { s: Symbol('s') } }],
    ['NaN', { role: 'user', content: 'x', meta: { n: Number.NaN } }],
    ['a Date', { role: 'user', content: 'x', meta: { when: new Date(0) } }],
    ['undefined inside an array', { role: 'user', content: 'x', meta: { list: [1, undefined] } }],
  ])('non-serialisable content (%s) is STRATA_NOT_SERIALIZABLE', async (_, message) => {
    const { store, thread, before } = await seeded()
    const valid = { role: 'user' as const, content: 'would be first in the batch' }
    const error = await thread.append([valid, message as never]).catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_NOT_SERIALIZABLE')).toBe(true)
    expect((error as Error).message).toMatch(/message\[1\]/)
    expect(await snapshot(store, 'victim')).toEqual(before)
  })

  it('a providerExecuted flag that is not a boolean is STRATA_INVALID_MESSAGE', async () => {
    const { store, thread, before } = await seeded()
    const call = {
      type: 'tool-call',
      toolCallId: 'c',
      toolName: 'web_search',
      input: {},
      providerExecuted: 'yes',
    }
    const error = await thread
      .append([{ role: 'user', content: 'search' }, { role: 'assistant', content: [call] } as never])
      .catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_INVALID_MESSAGE')).toBe(true)
    expect((error as Error).message).toMatch(/providerExecuted must be a boolean/)
    expect(await snapshot(store, 'victim')).toEqual(before)
  })

  it('invalid options to createMemory are typed errors', () => {
    expect(() => createMemory({ levels: ['only'] })).toThrow(code('STRATA_INVALID_LEVEL'))
    expect(() => createMemory({ summarizer: {} as never })).toThrow(code('STRATA_INVALID_OPTIONS'))
    expect(() => createMemory({ tokenCounter: { name: 'x' } as never })).toThrow(
      code('STRATA_INVALID_OPTIONS'),
    )
  })
})
