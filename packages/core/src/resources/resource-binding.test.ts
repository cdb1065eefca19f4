import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { createMemory } from '../memory'
import { inMemoryStore, type StrataStore } from '../stores'

const caught = async (run: () => Promise<unknown>) => {
  try {
    await run()
  } catch (error) {
    return error as StrataError
  }
  throw new Error('expected a refusal')
}

const threadsOf = async (memory: ReturnType<typeof createMemory>, resourceId: string) =>
  (await memory.resource(resourceId).listThreads()).threads.map((entry) => entry.threadId)

describe('a thread and its resource', () => {
  it('is bound on its first open, in the store, and listed by its resource', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const thread = await memory.thread('chat-1', { resource: 'user-1' })
    expect(await store.getThreadResource!('chat-1')).toBe('user-1')
    expect(thread.resource?.id).toBe('user-1')
    // Reopening with the same resource, or without one, keeps it.
    await memory.thread('chat-1', { resource: 'user-1' })
    expect((await memory.thread('chat-1')).resource?.id).toBe('user-1')
    await thread.append({ role: 'user', content: 'hello' })
    expect(await threadsOf(memory, 'user-1')).toEqual(['chat-1'])
  })

  it('refuses another resource on a later open, naming both and adoptThread, and stays bound', async () => {
    const store = inMemoryStore()
    await createMemory({ store }).thread('chat-1', { resource: 'user-1' })
    // Another memory on the same store (another process) reads the binding from the store.
    const other = createMemory({ store })
    const error = await caught(() => other.thread('chat-1', { resource: 'user-2' }))
    expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')).toBe(true)
    expect(error.message).toContain("'user-1'")
    expect(error.message).toContain("'user-2'")
    expect(error.message).toContain("memory.resource('user-2').adoptThread('chat-1')")
    expect(await store.getThreadResource!('chat-1')).toBe('user-1')
  })

  it('two opens racing with different resources: one binds, the other is refused', async () => {
    const store = inMemoryStore()
    const [first, second] = [createMemory({ store }), createMemory({ store })]
    const results = await Promise.allSettled([
      first.thread('chat-1', { resource: 'user-1' }),
      second.thread('chat-1', { resource: 'user-2' }),
    ])
    const bound = await store.getThreadResource!('chat-1')
    expect(['user-1', 'user-2']).toContain(bound)
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
    const refused = results.find((result) => result.status === 'rejected') as PromiseRejectedResult
    expect(StrataError.isInstance(refused.reason, 'STRATA_INVALID_OPTIONS')).toBe(true)
  })

  it('adoptThread moves a thread: its index entry, its open thread object and its later touches', async () => {
    const memory = createMemory()
    const thread = await memory.thread('chat-1', { resource: 'user-1' })
    await thread.append({ role: 'user', content: 'hello' })
    await memory.resource('user-2').adoptThread('chat-1')
    expect(thread.resource?.id).toBe('user-2')
    expect(await threadsOf(memory, 'user-1')).toEqual([])
    expect(await threadsOf(memory, 'user-2')).toEqual(['chat-1'])
    // Now opened with its new resource; the old one is refused.
    await memory.thread('chat-1', { resource: 'user-2' })
    expect((await caught(() => memory.thread('chat-1', { resource: 'user-1' }))).code).toBe(
      'STRATA_INVALID_OPTIONS',
    )
    await thread.append({ role: 'user', content: 'again' })
    expect(await threadsOf(memory, 'user-1')).toEqual([])
  })

  it('touches the index on every append, newest first, also for a thread opened without its resource', async () => {
    // One clock for the store (a binding enters the index at the store's time) and the memories.
    let now = 1_000
    const clock = () => now++
    const store = inMemoryStore({ clock })
    const memory = createMemory({ store, clock })
    for (const id of ['chat-1', 'chat-2', 'chat-3']) {
      const thread = await memory.thread(id, { resource: 'user-1' })
      await thread.append({ role: 'user', content: `hello from ${id}` })
    }
    expect(await threadsOf(memory, 'user-1')).toEqual(['chat-3', 'chat-2', 'chat-1'])
    // Another memory opens chat-1 without naming its resource: the store's binding counts.
    const other = createMemory({ store, clock })
    const reopened = await other.thread('chat-1')
    expect(reopened.resource?.id).toBe('user-1')
    await reopened.append({ role: 'user', content: 'back again' })
    await other.settled()
    expect(await threadsOf(memory, 'user-1')).toEqual(['chat-1', 'chat-3', 'chat-2'])
    const page = await memory.resource('user-1').listThreads({ limit: 2 })
    expect(page.threads.map((entry) => entry.threadId)).toEqual(['chat-1', 'chat-3'])
    const rest = await memory.resource('user-1').listThreads({ limit: 2, cursor: page.cursor! })
    expect(rest.threads.map((entry) => entry.threadId)).toEqual(['chat-2'])
    expect(rest.cursor).toBeUndefined()
  })

  it('a thread without a resource is not touched anywhere', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const thread = await memory.thread('loose')
    await thread.append({ role: 'user', content: 'hello' })
    expect(thread.resource).toBeUndefined()
    expect(await store.getThreadResource!('loose')).toBeUndefined()
  })

  it('refuses bad resource ids like thread ids', async () => {
    const memory = createMemory()
    for (const id of ['', '../x', 'a/b', '.hidden', 'x'.repeat(129)]) {
      expect(() => memory.resource(id)).toThrowError(/Invalid resource id/)
      expect((await caught(() => memory.thread('chat-1', { resource: id }))).code).toBe(
        'STRATA_INVALID_THREAD_ID',
      )
    }
  })

  it('a store without flags.resources refuses resources with STRATA_STORE_CAPABILITY, naming the store', async () => {
    const full = inMemoryStore()
    const store: StrataStore = { ...full, name: 'no-resources', flags: { ...full.flags, resources: false } }
    const memory = createMemory({ store })
    for (const run of [
      () => memory.thread('chat-1', { resource: 'user-1' }),
      () => memory.resource('user-1').getWorkingMemory(),
      () => memory.resource('user-1').query('hello'),
      () => memory.resource('user-1').putDocument(['notes'], 'a', { text: 'x' }),
    ]) {
      const error = await caught(run)
      expect(StrataError.isInstance(error, 'STRATA_STORE_CAPABILITY')).toBe(true)
      expect(error.message).toContain("'no-resources' store")
      expect(error.message).toContain('flags.resources')
      expect(error.details).toMatchObject({ capability: 'resources', store: 'no-resources' })
    }
    // Threads without a resource work as before.
    const thread = await memory.thread('chat-1')
    await thread.append({ role: 'user', content: 'hello' })
    expect(thread.resource).toBeUndefined()
  })
})
