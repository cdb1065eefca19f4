import type { SummaryItem, UnsequencedItem } from '../../items'
import { traceCompaction } from '../../telemetry'
import type { WritePath } from '../../thread-state/write-path'
import type { PolicyState } from '../compaction-policy'
import type { CompactionReport } from '../compaction-report'
import type { WaterfallCompaction } from './waterfall-options'
import { planWaterfall } from './waterfall-plan'

/**
 * Runs the waterfall policy for one thread, in the background: short-term ← summary of the items
 * outside the immediate window not yet summarized; long-term ← summary of the previous short-term and
 * long-term. Contexts are never made to wait; the next one uses the summaries once they are written.
 */
export class WaterfallRunner<L extends string> {
  readonly #state: PolicyState<L, WaterfallCompaction>
  readonly #writes: WritePath<L>
  readonly #report: CompactionReport<L>
  /** The waterfall compaction running in the background, if any. */
  #run: Promise<void> | undefined

  constructor(state: PolicyState<L, WaterfallCompaction>, writes: WritePath<L>, report: CompactionReport<L>) {
    this.#state = state
    this.#writes = writes
    this.#report = report
  }

  /** Settles when the running compaction, if any, has ended. */
  async settled(): Promise<void> {
    if (this.#run !== undefined) await this.#run
  }

  /**
   * What the waterfall's contexts draw on: the messages it has not summarized yet and its latest short-
   * and long-term summaries. A waterfall compaction moves the first into the second.
   */
  #tokens(): number {
    const state = this.#state
    let total = 0
    // Counts only: the window's items need not be frozen for it.
    for (const item of state.unfrozenWindow())
      if (item.type === 'message') total += state.logMessageTokens(item)
    for (const tier of ['short-term', 'long-term'] as const) {
      const summary = state.log.latestSummary(tier)
      if (summary !== undefined)
        total += state.countTokens({ content: [{ type: 'text', text: summary.text }] })
    }
    return total
  }

  /** Starts a compaction in the background when a plan is due (and, unless `manual`, retries allow). */
  start({ manual = false }: { manual?: boolean } = {}) {
    const state = this.#state
    const options = state.deps.compaction.waterfall
    if (options === false || this.#run !== undefined) return
    if (!manual && !this.#report.retry.ready(state.deps.clock())) return
    // Planned after every append; the plan holds seqs only, so the log's items need not be frozen for it.
    const plan = planWaterfall(state.log.unfrozenItems, { ...options, ...state.log.waterfallCursor })
    if (plan === undefined) return
    const run = async () => {
      const started = state.deps.clock()
      const tokensBefore = this.#tokens()
      state.deps.events.emit('compaction-start', { threadId: state.id, trigger: 'waterfall', tokensBefore })
      try {
        const wanted = new Set(plan.shortTermSeqs)
        const items = state.log.items.filter((item) => wanted.has(item.seq))
        const previousShort = state.log.latestSummary('short-term')
        const previousLong = state.log.latestSummary('long-term')
        const short = await state.summarize(items, {
          tier: 'short-term',
          ...(previousShort === undefined ? {} : { previousSummary: previousShort.text }),
        })
        const written: Omit<SummaryItem<L>, 'seq'>[] = [
          state.summaryItem('short-term', short.summary, plan.range, plan.turnIds),
        ]
        if (plan.longTermFromPrevious && previousShort !== undefined) {
          const inputs = previousLong === undefined ? [previousShort] : [previousLong, previousShort]
          const long = await state.summarize(inputs, {
            tier: 'long-term',
            ...(previousLong === undefined ? {} : { previousSummary: previousLong.text }),
          })
          const from = previousLong?.range.fromSeq ?? previousShort.range.fromSeq
          written.push(
            state.summaryItem('long-term', long.summary, { fromSeq: from, toSeq: previousShort.range.toSeq }),
          )
        }
        // Commit only if no other writer summarized these items and none of them was archived meanwhile
        // (a rewind or a budget compaction, in this process or another: the log is read again first);
        // else the next append re-plans.
        const stored = await this.#writes.exclusive(async () => {
          await this.#writes.refresh()
          return this.#writes.write(() => {
            const active = new Set(state.log.items.map((item) => item.seq))
            const archived = plan.shortTermSeqs.some((seq) => !active.has(seq))
            return state.log.waterfallCursor.summarizedThroughSeq >= plan.range.fromSeq || archived
              ? []
              : (written as UnsequencedItem<L>[])
          })
        })
        this.#report.end('waterfall', tokensBefore, started, {
          tokensAfter: this.#tokens(),
          itemsWritten: stored.length,
          ...(stored.length === 0 ? { skipped: 'superseded' } : {}),
        })
      } catch (error) {
        // Nothing was written: the cursor did not move, so the next append plans the same compaction again.
        this.#report.end('waterfall', tokensBefore, started, { error })
      }
    }
    const span = {
      threadId: state.id,
      policy: 'waterfall',
      trigger: 'waterfall',
      items: () => state.log.activeCount,
    }
    this.#run = traceCompaction(state.deps.tracer, state.deps.events, span, run).finally(() => {
      this.#run = undefined
    })
  }
}
