import { invalidOptions, shownValue } from '../errors'
import type { HistoryMode } from '../history'
import { markRequestFailed, type Thread } from '../memory'

/** How many threads with a failed last call an adapter remembers by default (a bound, not a tuning knob). */
export const MAX_FAILED_THREADS = 10_000

/** What {@link FailedThreads.fail} is told of the failed call. */
export interface FailOptions {
  /** The caller aborted the request (the stop button): it did not fail, so nothing is marked in the store. */
  aborted?: boolean
}

/**
 * The threads whose last model call failed before its response was stored, as one adapter (one
 * process) saw them: the most recent `limit`, the oldest forgotten first. A framework retries a failed
 * call with the same prompt, and a user may send the message again: in `'new'` mode the last message
 * would be stored twice, so the next call of such a thread reads its messages as `'auto'` does
 * ({@link FailedThreads.historyMode}). A failure another process saw is read from the thread's state
 * (`thread.failures()`, written by {@link FailedThreads.fail} through `markRequestFailed`).
 *
 * @example
 * const failed = new FailedThreads()
 * const mode = await failed.historyMode(thread, 'new', conversation.at(-1)?.role)
 * try { response = await model(call) } catch (error) { await failed.fail(thread, error); throw error }
 * failed.succeeded(thread.id)
 */
export class FailedThreads {
  readonly #ids = new Set<string>()
  readonly #limit: number

  constructor(limit = MAX_FAILED_THREADS) {
    if (!Number.isSafeInteger(limit) || limit < 1)
      invalidOptions(`FailedThreads: limit must be a whole number above 0 (got ${shownValue(limit)}).`, {
        limit,
      })
    this.#limit = limit
  }

  /** How many threads are remembered. */
  get size(): number {
    return this.#ids.size
  }

  /** Whether the thread's last call failed, as far as this adapter saw. */
  has(threadId: string): boolean {
    return this.#ids.has(threadId)
  }

  /** Remembers that the thread's call failed (the newest entry); the oldest is forgotten past the limit. */
  add(threadId: string): void {
    this.#ids.delete(threadId)
    this.#ids.add(threadId)
    if (this.#ids.size > this.#limit) this.#ids.delete(this.#ids.values().next().value!)
  }

  /** The thread's call stored its response: its failure is over. */
  succeeded(threadId: string): void {
    this.#ids.delete(threadId)
  }

  /**
   * A model call on the thread failed: remembered here and, unless the caller aborted it or there is
   * no error (a stream the caller cancelled), marked in the store (`markRequestFailed`), before the
   * request's hold is released. A mark the store cannot write is given up: the caller sees the
   * provider's error.
   */
  async fail(thread: Thread<string>, error: unknown, { aborted = false }: FailOptions = {}): Promise<void> {
    this.add(thread.id)
    if (error !== undefined && !aborted) await markRequestFailed(thread, error)
  }

  /**
   * The history mode a call uses: `'auto'` in place of `'new'` when the call may be a retry of a failed
   * one (this adapter saw the thread's last call fail, or the call sends a user message last and the
   * thread's state holds a failure another process marked), so a re-sent message is not stored twice;
   * the requested mode otherwise. The store is read only for a `'new'` call whose last message is the user's.
   */
  async historyMode(
    thread: Thread<string>,
    requested: HistoryMode,
    lastRole: string | undefined,
  ): Promise<HistoryMode> {
    if (requested !== 'new') return requested
    if (this.has(thread.id)) return 'auto'
    return lastRole === 'user' && (await thread.failures()).length > 0 ? 'auto' : 'new'
  }
}
