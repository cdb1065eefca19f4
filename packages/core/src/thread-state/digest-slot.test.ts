import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'
import { storeWithOverrides } from '../stores/store-overrides'
import { agentTurn, countingStore } from '../testing/thread-open-suite'
import { DIGEST_SLOT, DIGEST_STATE_KEY } from './log-digest'

const options = { compaction: { budget: { inputTokens: 3_000 } } } as const

/** `turns` agent turns from turn `from`, compacted: most of the thread archived. */
async function archivedThread(
  thread: Awaited<ReturnType<ReturnType<typeof createMemory>['thread']>>,
  turns = 30,
  from = 1,
) {
  for (let turn = from; turn < from + turns; turn++) await thread.append(agentTurn(turn))
  await thread.compact({ force: true })
  await thread.settled()
}

describe('the log digest in its slot', () => {
  it('is written under the hold: the slot write carries the lease', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ ...options, store })
    const thread = await memory.thread('held')
    const hold = await thread.hold()
    await archivedThread(thread)
    expect((await store.head('held')).archivedCount).toBeGreaterThan(0)
    // Another writer is refused while the hold lasts; the holder's digest went through.
    await expect(store.setSlot('held', DIGEST_SLOT, { x: 1 })).rejects.toMatchObject({
      code: 'STRATA_THREAD_BUSY',
    })
    expect(await store.getSlot('held', DIGEST_SLOT)).toMatchObject({ version: 1 })
    await hold.release()
    const { store: counted, reads } = countingStore(store)
    await createMemory({ ...options, store: counted }).thread('held')
    expect(reads.readArchive).toBe(0)
  })

  it('a slot that does not parse counts as none: the open replays, and the next write replaces it', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ ...options, store })
    await archivedThread(await memory.thread('torn'))
    const archived = (await store.head('torn')).archivedCount
    const corrupt = storeWithOverrides(
      store,
      new Map([
        [
          'getSlot',
          async () => {
            throw new StrataError({ code: 'STRATA_CORRUPT_LOG', message: 'slot.log-digest.json is not JSON' })
          },
        ],
      ]),
    )
    const first = countingStore(corrupt)
    const thread = await createMemory({ ...options, store: first.store }).thread('torn')
    expect(first.reads.archivedItems).toBe(archived)
    await thread.append({ role: 'user', content: 'next', id: 'after-torn' })
    expect(first.writes.setSlot).toBe(1)
    const second = countingStore(store)
    await createMemory({ ...options, store: second.store }).thread('torn')
    expect(second.reads.readArchive).toBe(0)
  })

  it('a state write on a store with slots never writes the digest into the state', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ ...options, store })
    const thread = await memory.thread('kept')
    await archivedThread(thread)
    await thread.reportUsage({ inputTokens: 100 })
    await thread.markFailed({ reason: 'provider down' }).catch(() => undefined)
    expect((await store.getState('kept'))?.[DIGEST_STATE_KEY]).toBeUndefined()
    expect(await store.getSlot('kept', DIGEST_SLOT)).toMatchObject({ version: 1 })
  })
})

describe('a digest stored while a thread opens', () => {
  it('newer than the counters the open read: the open reads the log again, not the archive', async () => {
    const store = inMemoryStore()
    const writer = await createMemory({ ...options, store }).thread('racing')
    await archivedThread(writer)
    let raced = false
    // Another process appends and archives between this open's `head` and its digest read.
    const racing = storeWithOverrides(
      store,
      new Map([
        [
          'head',
          async (threadId: string) => {
            const head = await store.head(threadId)
            if (!raced) {
              raced = true
              await archivedThread(writer, 12, 31)
            }
            return head
          },
        ],
      ]),
    )
    const { store: counted, reads } = countingStore(racing)
    const thread = await createMemory({ ...options, store: counted }).thread('racing')
    expect(raced).toBe(true)
    expect(reads.readArchive).toBe(0)
    expect((await thread.status()).items).toEqual((await writer.status()).items)
  })
})
