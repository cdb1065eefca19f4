import { StrataError, type StrataStore } from '@strata-memory/core'
import { resolveStrataThreadId } from './thread-id-mapping'
import { type MastraThreadRecord, readThreadRecord, writeThreadRecord } from './thread-record'

/**
 * The Mastra thread records of one `StrataMemory`, written to the Strata thread's state. While a run
 * of this memory holds a thread, the store refuses every write to it that does not carry the hold's
 * lease, and Mastra saves the thread during a run (`savePerStep`, its `updatedAt`): such a write waits
 * until the run gives the thread back, and reads see it meanwhile.
 */
export class ThreadRecordWrites {
  readonly #store: () => StrataStore
  /** Strata thread ids a run of this memory holds. */
  readonly #held = new Set<string>()
  /** Records waiting for their thread to be given back. */
  readonly #pending = new Map<string, MastraThreadRecord>()

  constructor(store: () => StrataStore) {
    this.#store = store
  }

  /**
   * The Strata thread of a Mastra thread id, and its record when it was saved. A hashed id that another
   * Mastra id already holds is `STRATA_INVALID_THREAD_ID`: never answer with someone else's thread.
   */
  async lookup(threadId: string): Promise<{ strataId: string; record: MastraThreadRecord | undefined }> {
    const strataId = await resolveStrataThreadId(this.#store(), threadId)
    const record = await this.read(strataId)
    if (record !== undefined && record.threadId !== threadId) {
      throw new StrataError({
        code: 'STRATA_INVALID_THREAD_ID',
        message: `Mastra thread ids ${JSON.stringify(threadId)} and ${JSON.stringify(record.threadId)} map onto the same Strata thread '${strataId}': the thread there is the other's, so use another id for this one.`,
        details: { threadId, reason: 'collision' },
      })
    }
    return { strataId, record }
  }

  /**
   * The Strata thread to delete for a Mastra thread id: {@link lookup}'s, or, for a thread whose history
   * the store lost (`STRATA_THREAD_LOST`, which every read of it throws), the one the loss names, so the
   * loss can be accepted by deleting it, as the error says.
   */
  async toDelete(threadId: string): Promise<string> {
    try {
      return (await this.lookup(threadId)).strataId
    } catch (error) {
      if (!StrataError.isInstance(error, 'STRATA_THREAD_LOST')) throw error
      return error.details.threadId
    }
  }

  /** {@link lookup} of a thread that must have been saved (`STRATA_INVALID_THREAD_ID` naming `method` otherwise). */
  async existing(threadId: string, method: string) {
    const found = await this.lookup(threadId)
    if (found.record === undefined) {
      throw new StrataError({
        code: 'STRATA_INVALID_THREAD_ID',
        message: `StrataMemory.${method}(): no thread ${JSON.stringify(threadId)}: save it first (saveThread or createThread), or call the agent with memory: { thread, resource }.`,
        details: { threadId, reason: 'not-found' },
      })
    }
    return found as { strataId: string; record: MastraThreadRecord }
  }

  async read(strataId: string): Promise<MastraThreadRecord | undefined> {
    return this.#pending.get(strataId) ?? readThreadRecord(this.#store(), strataId)
  }

  async write(strataId: string, record: MastraThreadRecord): Promise<void> {
    if (this.#held.has(strataId)) {
      this.#pending.set(strataId, record)
      return
    }
    this.#pending.delete(strataId)
    await writeThreadRecord(this.#store(), strataId, record)
  }

  /**
   * Moves the record's `updatedAt` to now (a run stored messages), as Mastra's storages do when they
   * save messages; chat lists sort by it. Held back like any write while a run holds the thread.
   */
  async touch(strataId: string): Promise<void> {
    const record = await this.read(strataId)
    if (record === undefined) return
    await this.write(strataId, { ...record, updatedAt: new Date().toISOString() })
  }

  /** A run of this memory took the thread. */
  hold(strataId: string): void {
    this.#held.add(strataId)
  }

  /** The run gave the thread back: the record it held back is written. */
  async release(strataId: string): Promise<void> {
    this.#held.delete(strataId)
    const record = this.#pending.get(strataId)
    if (record === undefined) return
    this.#pending.delete(strataId)
    try {
      await writeThreadRecord(this.#store(), strataId, record)
    } catch (error) {
      // Another request took the thread at once: the record waits for the next write or release.
      if (!StrataError.isInstance(error, 'STRATA_THREAD_BUSY')) throw error
      if (!this.#pending.has(strataId)) this.#pending.set(strataId, record)
    }
  }
}
