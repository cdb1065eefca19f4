import type { CompactionEndEvent, CompactionTrigger } from '../events'
import type { JsonObject } from '../items'
import type { WritePath } from '../thread-state/write-path'
import type { PolicyState } from './policy-state'
import { type RetryBackoff, retryBackoff } from './retry-backoff'

/** The last compaction a thread ran (kept in the thread's state, so it survives a restart). */
export interface LastCompaction {
  trigger: CompactionTrigger
  /** When it ended, epoch ms. */
  ts: number
  durationMs: number
  tokensBefore: number
  tokensAfter: number
  itemsArchived: number
  itemsWritten: number
  skipped?: string
  warning?: string
  /** The summarizer's error message, when it failed. */
  error?: string
  /** After a failure: when automatic compaction tries again (epoch ms). */
  retryAt?: number
}

/**
 * How a thread's compactions end, shared by every policy's runner: the `compaction-end` event, the last
 * compaction kept for status (and in the stored state), and the back-off after summarizer failures.
 */
export class CompactionReport<L extends string> {
  /** Spaces out automatic retries after summarizer failures; compaction by hand ignores it. */
  readonly retry: RetryBackoff
  last: LastCompaction | undefined
  readonly #state: PolicyState<L>
  readonly #writes: WritePath<L>

  constructor(state: PolicyState<L>, writes: WritePath<L>) {
    this.#state = state
    this.#writes = writes
    this.retry = retryBackoff(state.deps.compaction.retry)
  }

  end(
    trigger: CompactionTrigger,
    tokensBefore: number,
    started: number,
    outcome: Partial<CompactionEndEvent>,
  ) {
    const { deps, id } = this.#state
    const now = deps.clock()
    if (outcome.error !== undefined) this.retry.failed(now)
    else if (outcome.itemsWritten) this.retry.succeeded()
    const event: CompactionEndEvent = {
      threadId: id,
      trigger,
      tokensBefore,
      tokensAfter: outcome.tokensAfter ?? tokensBefore,
      itemsArchived: 0,
      itemsWritten: 0,
      durationMs: now - started,
      ...outcome,
      ...(outcome.error === undefined ? {} : { retryAt: this.retry.retryAt! }),
    }
    const { threadId: _, error, summary: __, ...fields } = event
    const last: LastCompaction = { ...fields, ts: now }
    if (error !== undefined) last.error = error instanceof Error ? error.message : String(error)
    this.last = last
    // Status shows it after a restart too; a failing state write must not turn into an unhandled rejection.
    this.#writes
      .exclusive(() => this.#writes.updateState({ lastCompaction: { ...last } as JsonObject }))
      .catch(() => undefined)
    deps.events.emit('compaction-end', event)
  }
}
