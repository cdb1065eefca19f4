import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { inMemoryStore } from '../stores'
import { createMemory } from './create-memory'
import type { Thread } from './thread'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

async function failure(call: () => Promise<unknown>): Promise<unknown> {
  return call().then(
    () => {
      throw new Error('expected the call to fail')
    },
    (error: unknown) => error,
  )
}

/** What a thread holds, for "the thread is exactly as it was". */
async function snapshot(thread: Thread) {
  return { items: await thread.items(), status: await thread.status() }
}

/** One request as an adapter runs it: hold, a user message, a tool call and its result, release. */
async function request(thread: Thread, name: string) {
  const hold = await thread.hold()
  try {
    await thread.append({ role: 'user', content: `run ${name}` })
    await thread.append({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: `call-${name}`, toolName: 'lookup', input: { name } }],
    })
    await sleep(5)
    await thread.append({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: `call-${name}`, toolName: 'lookup', output: { ok: true } },
      ],
    })
  } finally {
    await hold.release()
  }
}

describe('thread.hold()', () => {
  it('two concurrent holds on one thread object: one is STRATA_THREAD_BUSY, the thread unchanged', async () => {
    const memory = createMemory()
    const thread = await memory.thread('busy-same')
    await thread.append({ role: 'user', content: 'Hello' })
    const before = await snapshot(thread)
    const results = await Promise.allSettled([thread.hold(), thread.hold()])
    const granted = results.filter((result) => result.status === 'fulfilled')
    const refused = results.filter((result) => result.status === 'rejected')
    expect(granted).toHaveLength(1)
    expect(refused).toHaveLength(1)
    const error = (refused[0] as PromiseRejectedResult).reason as StrataError<'STRATA_THREAD_BUSY'>
    expect(StrataError.isInstance(error, 'STRATA_THREAD_BUSY')).toBe(true)
    expect(error.details.threadId).toBe('busy-same')
    expect(await snapshot(thread)).toEqual(before)
    await (granted[0] as PromiseFulfilledResult<Awaited<ReturnType<Thread['hold']>>>).value.release()
    // Free again: the next request holds it.
    await (await thread.hold()).release()
  })

  it('two memories on one store: the second hold is STRATA_THREAD_BUSY with the expiry, nothing written', async () => {
    const store = inMemoryStore()
    const first = await createMemory({ store }).thread('busy-shared')
    const second = await createMemory({ store }).thread('busy-shared')
    await first.append({ role: 'user', content: 'Hello' })
    const hold = await first.hold({ ttlMs: 10_000 })
    const before = await store.read('busy-shared')
    const error = (await failure(() => second.hold())) as StrataError<'STRATA_THREAD_BUSY'>
    expect(StrataError.isInstance(error, 'STRATA_THREAD_BUSY')).toBe(true)
    expect(error.details.expiresAt).toBeGreaterThan(Date.now())
    expect(error.message).toContain("Thread 'busy-shared' is held by another request")
    // A plain write of another owner is refused before it writes anything: a second request never writes.
    const refused = await failure(() => second.append({ role: 'user', content: 'second request' }))
    expect(StrataError.isInstance(refused, 'STRATA_THREAD_BUSY')).toBe(true)
    const refusedState = await failure(() => second.reportUsage({ inputTokens: 10 }))
    expect(StrataError.isInstance(refusedState, 'STRATA_THREAD_BUSY')).toBe(true)
    expect(await store.read('busy-shared')).toEqual(before)
    expect(await store.getState('busy-shared')).toBeUndefined()
    // The holder's own writes go through.
    await first.append({ role: 'assistant', content: 'Hi' })
    await first.reportUsage({ inputTokens: 12 })
    await hold.release()
    await second.append({ role: 'user', content: 'now it is free' })
    expect((await store.head('busy-shared')).lastSeq).toBe(3)
  })

  it('many concurrent requests on two memories: each completes or is BUSY; no orphan tool call', async () => {
    const store = inMemoryStore()
    const threads = [
      await createMemory({ store }).thread('busy-many'),
      await createMemory({ store }).thread('busy-many'),
    ]
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) => request(threads[index % 2]!, `r${index}`)),
    )
    const completed = results.filter((result) => result.status === 'fulfilled').length
    for (const result of results) {
      if (result.status === 'rejected')
        expect(StrataError.isInstance(result.reason, 'STRATA_THREAD_BUSY'), String(result.reason)).toBe(true)
    }
    expect(completed).toBeGreaterThan(0)
    const reader = await createMemory({ store }).thread('busy-many')
    const interactions = await reader.toolInteractions()
    expect(interactions).toHaveLength(completed)
    expect(interactions.every((interaction) => interaction.status === 'success')).toBe(true)
    expect((await reader.items()).filter((item) => item.type === 'message')).toHaveLength(3 * completed)
  })

  it('renews while held, so the hold outlives its ttl; released, the thread is free', async () => {
    const store = inMemoryStore()
    const holder = await createMemory({ store }).thread('renewed')
    const other = await createMemory({ store }).thread('renewed')
    const hold = await holder.hold({ ttlMs: 60 })
    await sleep(250)
    expect(StrataError.isInstance(await failure(() => other.hold()), 'STRATA_THREAD_BUSY')).toBe(true)
    await hold.release()
    await hold.release()
    await hold[Symbol.asyncDispose]()
    await (await other.hold()).release()
  })

  it('a holder that stopped renewing (a dead process) frees the thread when its lease lapses', async () => {
    let now = 1_000_000
    const store = inMemoryStore({ clock: () => now })
    // The dead holder: a lease taken directly, never renewed.
    await store.acquireLease('abandoned', { owner: 'dead-process', ttlMs: 30_000 })
    const thread = await createMemory({ store }).thread('abandoned')
    expect(StrataError.isInstance(await failure(() => thread.hold()), 'STRATA_THREAD_BUSY')).toBe(true)
    now += 30_001
    const hold = await thread.hold()
    await thread.append({ role: 'user', content: 'after the lapse' })
    await hold.release()
    expect((await store.head('abandoned')).lastSeq).toBe(1)
  })

  it("catches up with the previous holder's writes when granted", async () => {
    const store = inMemoryStore()
    const stale = await createMemory({ store }).thread('catch-up')
    const writer = await createMemory({ store }).thread('catch-up')
    await stale.append({ role: 'user', content: 'one' })
    await writer.append({ role: 'assistant', content: 'two' })
    const hold = await stale.hold()
    expect((await stale.items()).map((item) => item.seq)).toEqual([1, 2])
    await hold.release()
  })

  it('with `await using`, the hold ends with the block, also when the request throws', async () => {
    const store = inMemoryStore()
    const thread = await createMemory({ store }).thread('disposed')
    const run = async () => {
      await using _hold = await thread.hold()
      await thread.append({ role: 'user', content: 'Hello' })
      throw new Error('the provider failed')
    }
    await expect(run()).rejects.toThrow('the provider failed')
    expect(await store.readLease('disposed')).toBeUndefined()
    await (await thread.hold()).release()
  })

  it('release never rejects: a lease the store fails to take back lapses, and the thread object can hold again', async () => {
    const store = inMemoryStore()
    const failing = Object.assign(Object.create(store) as typeof store, {
      releaseLease: async () => {
        throw new StrataError({ code: 'STRATA_STORE_FAILED', message: 'the store is down' })
      },
    })
    const thread = await createMemory({ store: failing }).thread('release-fails')
    const hold = await thread.hold({ ttlMs: 60 })
    await expect(hold.release()).resolves.toBeUndefined()
    await sleep(80)
    const again = await thread.hold()
    await again.release()
  })

  it('refuses a bad ttl with STRATA_INVALID_OPTIONS, taking nothing', async () => {
    const store = inMemoryStore()
    const thread = await createMemory({ store }).thread('bad-ttl')
    for (const ttlMs of [0, -1, 1.5, Number.NaN, 2 ** 31]) {
      expect(
        StrataError.isInstance(await failure(() => thread.hold({ ttlMs })), 'STRATA_INVALID_OPTIONS'),
      ).toBe(true)
    }
    expect(await store.readLease('bad-ttl')).toBeUndefined()
    await (await thread.hold()).release()
  })

  it('a content record of a refused plain write is not stored', async () => {
    const store = inMemoryStore()
    const holder = await createMemory({ store }).thread('busy-content')
    const other = await createMemory({ store }).thread('busy-content')
    await holder.append({ role: 'user', content: 'fetch it' })
    await holder.append({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'big', toolName: 'fetch_page', input: {} }],
    })
    await other.items()
    const hold = await holder.hold()
    const refused = await failure(() =>
      other.append({
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'big', toolName: 'fetch_page', output: 'x'.repeat(20_000) },
        ],
      }),
    )
    expect(StrataError.isInstance(refused, 'STRATA_THREAD_BUSY')).toBe(true)
    expect(await store.queryContent('busy-content')).toEqual([])
    await hold.release()
  })

  it("the holder's background compaction writes under its hold (summaries, state)", async () => {
    const store = inMemoryStore()
    const options = { store, compaction: { waterfall: { window: 4, every: 4 } } } as const
    const holder = await createMemory(options).thread('held-compaction')
    const other = await createMemory(options).thread('held-compaction')
    const hold = await holder.hold()
    for (let index = 0; index < 12; index++)
      await holder.append({ role: index % 2 === 0 ? 'user' : 'assistant', content: `message ${index}` })
    await holder.settled()
    expect((await store.read('held-compaction')).some((item) => item.type === 'summary')).toBe(true)
    expect(
      StrataError.isInstance(
        await failure(() => other.reportUsage({ inputTokens: 5 })),
        'STRATA_THREAD_BUSY',
      ),
    ).toBe(true)
    await hold.release()
  })

  it('keeps stamping its writes after an adapter makes the memory trace its store', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store })
    const thread = await memory.thread('traced-hold')
    const hold = await thread.hold()
    memory.adoptTracer('test', () => undefined)
    await thread.append({ role: 'user', content: 'Hello' })
    const other = await createMemory({ store }).thread('traced-hold')
    expect(
      StrataError.isInstance(
        await failure(() => other.append({ role: 'user', content: 'x' })),
        'STRATA_THREAD_BUSY',
      ),
    ).toBe(true)
    await hold.release()
    expect((await store.head('traced-hold')).lastSeq).toBe(1)
  })
})
