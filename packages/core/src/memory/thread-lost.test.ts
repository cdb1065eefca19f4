import { describe, expect, it } from 'vitest'
import { inMemoryStore } from '../stores'
import { createMemory } from './create-memory'

/*
 * A store that lost a thread's history (a Redis restarted without persistence, files removed) must
 * never look like an empty thread to a thread object that saw it: the next write is refused with
 * STRATA_THREAD_LOST and writes nothing, rather than restarting the history at seq 1.
 */
describe('a thread whose history the store lost', () => {
  it('refuses the next append with STRATA_THREAD_LOST and writes nothing', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const thread = await memory.thread('chat-1')
    for (let turn = 1; turn <= 5; turn++)
      await thread.append([
        { role: 'user', content: `Question ${turn}` },
        { role: 'assistant', content: `Answer ${turn}` },
      ])
    // What a Redis restarted without persistence looks like: the thread's keys are gone.
    await store.deleteThread('chat-1')
    const error = await thread.append({ role: 'user', content: 'Are you still there?' }).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toMatchObject({
      code: 'STRATA_THREAD_LOST',
      details: { threadId: 'chat-1', knownSeq: 10, storeSeq: 0 },
    })
    expect((error as Error).message).toMatch(/lost history.*seq 10.*seq 0.*Nothing was written/s)
    expect(await store.head('chat-1')).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
  })

  it('refuses when another writer started the thread again, shorter than it was', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const thread = await memory.thread('chat-1')
    await thread.append([
      { role: 'user', content: 'One' },
      { role: 'assistant', content: 'Two' },
      { role: 'user', content: 'Three' },
    ])
    await store.deleteThread('chat-1')
    // Another process, after the loss, writes the thread from scratch.
    await createMemory({ store })
      .thread('chat-1')
      .then((other) => other.append({ role: 'user', content: 'New start' }))
    await expect(thread.append({ role: 'user', content: 'Four' })).rejects.toMatchObject({
      code: 'STRATA_THREAD_LOST',
      details: { knownSeq: 3, storeSeq: 1 },
    })
    expect((await store.read('chat-1')).map((item) => item.seq)).toEqual([1])
  })

  it('a thread deleted through the memory opens again empty, without an error', async () => {
    const memory = createMemory({ store: inMemoryStore() })
    const thread = await memory.thread('chat-1')
    await thread.append({ role: 'user', content: 'Hello' })
    await memory.deleteThread('chat-1')
    const again = await memory.thread('chat-1')
    await again.append({ role: 'user', content: 'Hello again' })
    expect((await again.items()).map((item) => item.seq)).toEqual([1])
  })
})
