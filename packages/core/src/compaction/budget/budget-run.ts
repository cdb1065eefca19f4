import { StrataError } from '../../errors'
import type { CompactionTrigger } from '../../events'
import type { FactItem, Item, SummaryItem, UnsequencedItem } from '../../items'
import { indexFromSeq, seqRuns } from '../../items/seq-search'
import type { SummarizeResult } from '../../summarizers'
import { traceCompaction } from '../../telemetry'
import { deepFreeze } from '../../thread-state/frozen-items'
import { MAX_WRITE_ATTEMPTS, type WritePath } from '../../thread-state/write-path'
import type { PolicyState } from '../compaction-policy'
import type { CompactionReport } from '../compaction-report'
import { newFacts, recalledFacts } from './budget-facts'
import { BudgetGauge } from './budget-gauge'
import type { BudgetCompaction } from './budget-options'
import { planBudgetCompaction, shouldCompact } from './budget-plan'
import { type BudgetChunk, planChunks } from './chunk-plan'
import { rollUpMemory } from './memory-rollup-run'
import { planStepCompaction } from './step-plan'

/** What one compaction step does: the seqs it summarizes and archives, their turns and range. */
interface StepPlan {
  seqs: number[]
  turnIds: string[]
  range: { fromSeq: number; toSeq: number }
}

/** The share of the budget the newest steps of the current turns keep raw when older steps are compacted. */
export const KEEP_STEPS_SHARE = 0.5

/**
 * Runs the budget policy for one thread. After every write the thread's own estimate of the current
 * context (its counter's tokens, calibrated by the last usage report) is checked against the budget,
 * and a usage report is checked as it comes; over the threshold, a compaction runs in the background
 * (contexts wait for it, appends queue behind it). Whole turns older than the raw tail, and old steps
 * of the newest turns, become one episodic summary and new semantic facts, written first; then they
 * move to the archive.
 */
export class BudgetRunner<L extends string> {
  readonly #state: PolicyState<L, BudgetCompaction>
  readonly #writes: WritePath<L>
  readonly #report: CompactionReport<L>
  /** Set by `reportUsage` when the last prompt was over the budget's threshold. */
  requested: 'early' | 'hard' | undefined
  /** The input tokens of the last usage report that asked for a budget compaction. */
  #reportedInputTokens = 0
  /**
   * Set when compaction cannot bring the prompt under the threshold (nothing old enough to compact, or
   * the system prompt, memory slots and raw tail alone are over it): the history's tokens then. Budget
   * requests wait until the history has grown by the budget's headroom, so a compaction does not run on
   * every turn; the warning is sent once, until a prompt is under the threshold again.
   */
  #hold: number | undefined
  /** The budget calibrated by usage, and the thread's estimate of its context. */
  readonly gauge: BudgetGauge<L>
  /** The compaction running in the background, if any. */
  #run: Promise<void> | undefined
  /**
   * A long first compaction under way: the chunks still to do, oldest first, and the history's tokens
   * as the steps leave them (counted once, then less what each step archives).
   */
  #chunks: { queue: BudgetChunk[]; tokens: number; before: number } | undefined

  constructor(state: PolicyState<L, BudgetCompaction>, writes: WritePath<L>, report: CompactionReport<L>) {
    this.#state = state
    this.#writes = writes
    this.#report = report
    this.gauge = new BudgetGauge(state)
  }

  /** Takes in a provider-reported prompt size (the gauge calibrates by it): over the threshold, a compaction starts. */
  reportInputTokens(inputTokens: number, estimatedTokens?: number) {
    const { budget } = this.#state.deps.compaction
    if (budget === false) return
    this.gauge.observe(inputTokens, estimatedTokens)
    const urgency = shouldCompact({
      reportedInputTokens: inputTokens,
      inputBudget: budget.inputBudget,
      compactionRatio: budget.compactionRatio,
    })
    this.#request(urgency, this.gauge.counted(inputTokens))
  }

  /** After a write: the estimate of the current level's context against the threshold. */
  afterWrite() {
    const { budget } = this.#state.deps.compaction
    if (budget === false || this.#run !== undefined) return
    const estimate = this.gauge.estimate()
    this.#request(this.gauge.urgency(estimate), estimate)
  }

  #request(urgency: 'none' | 'early' | 'hard', countedTokens: number) {
    const { budget } = this.#state.deps.compaction
    if (budget === false) return
    if (urgency === 'none') {
      this.#hold = undefined
    } else if (this.#holdReleased(budget)) {
      this.requested = urgency
      this.#reportedInputTokens = countedTokens
    }
    this.start()
  }

  /**
   * Starts the requested compaction in the background, queued in the thread's exclusive section. A
   * long first compaction runs as a series of steps, each its own exclusive section: appends and
   * contexts queued meanwhile run between two steps.
   */
  start() {
    if (this.#run !== undefined || !this.due()) return
    this.#run = this.#steps().finally(() => {
      this.#run = undefined
    })
  }

  async #steps() {
    const writes = this.#writes
    for (;;) {
      try {
        await writes.exclusive(async () => {
          await writes.refresh()
          const state = this.#state
          const span = {
            threadId: state.id,
            policy: 'budget',
            trigger: 'budget',
            items: () => state.log.activeCount,
          }
          await traceCompaction(state.deps.tracer, state.deps.events, span, () => this.compact('budget'))
        })
      } catch (error) {
        // A store that failed while archiving: reported like a summarizer failure, retried later.
        this.#endSeries()
        this.#report.end('budget', this.#state.historyTokens(), this.#state.deps.clock(), { error })
        return
      }
      if (this.#chunks === undefined || !this.due()) return
      // A step may run without ever waiting on I/O (an in-memory store, an offline summarizer): yield
      // to the event loop, so requests that arrive meanwhile get in before the next step.
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
  }

  /** A long compaction's series of steps is over (done, failed or superseded): archives wait no more. */
  #endSeries() {
    this.#chunks = undefined
    this.#state.log.archiveLag = false
  }

  /** Settles when the running compaction, if any, has ended. */
  async settled(): Promise<void> {
    if (this.#run !== undefined) await this.#run
  }

  /** Whether a requested compaction may run now (retries after summarizer failures are spaced out). */
  due(): boolean {
    return this.requested !== undefined && this.#report.retry.ready(this.#state.deps.clock())
  }

  /**
   * Budget compaction, inside the thread's exclusive section: one step (a long first compaction is a
   * series of them; by hand, all of them at once). A summarizer failure leaves the log untouched and
   * keeps the request for the next context.
   */
  async compact(trigger: CompactionTrigger): Promise<void> {
    await this.#step(trigger)
    while (trigger === 'manual' && this.#chunks !== undefined && this.#report.last?.error === undefined)
      await this.#step(trigger)
  }

  async #step(trigger: CompactionTrigger, attempt = 1): Promise<void> {
    const state = this.#state
    // Plans read every active item: any an open sealed (a thread given a budget after it) are read back.
    await state.log.unsealAfter(0)
    const budget = state.deps.compaction.budget
    const rawTailTurns = budget === false ? 4 : budget.rawTailTurns
    const chunkItems = budget === false ? undefined : budget.chunkItems
    const started = state.deps.clock()
    // A compaction cut short before finishes first: its summary already stands for its items.
    await this.#writes.finishArchive()
    const chunk = this.#nextChunk(rawTailTurns, chunkItems)
    if (chunk !== undefined) return this.#commit(trigger, chunk, this.#chunks!.tokens, started, attempt)
    const tokensBefore = state.historyTokens()
    const plan = this.#plan(rawTailTurns)
    if (plan === undefined) {
      this.requested = undefined
      // A prompt that is large without old turns (a huge system prompt) must not re-trigger every turn.
      const first = this.#hold === undefined
      this.#hold = tokensBefore
      if (first) {
        this.#report.end(trigger, tokensBefore, started, {
          skipped: 'nothing-to-compact',
          warning:
            'The prompt is over the compaction threshold but holds no whole turn older than the raw tail: ' +
            'the system prompt, the memory slots or the current turns alone fill the budget. Shorten the ' +
            'system prompt, lower budget.rawTailTurns or raise the budget. Budget compaction ' +
            'waits until the history has grown; reported once until a prompt is under the threshold.',
        })
      }
      return
    }
    return this.#commit(trigger, plan, tokensBefore, started, attempt)
  }

  /**
   * The next chunk of a long first compaction, planned when one is due (the whole turns to compact are
   * many); undefined when the compaction is short, or its chunks are done. A chunk whose items are no
   * longer all active (another writer compacted or rewound) ends the series: the next step plans anew.
   */
  #nextChunk(rawTailTurns: number, chunkItems: number | undefined): BudgetChunk | undefined {
    const state = this.#state
    if (this.#chunks === undefined) {
      const openings = new Set(state.log.scopes.map((scope) => scope.seq))
      const queue = planChunks(state.log.unfrozenItems, {
        rawTailTurns,
        keep: openings,
        ...(chunkItems === undefined ? {} : { chunkItems }),
      })
      if (queue === undefined) return undefined
      const tokens = state.historyTokens()
      this.#chunks = { queue, tokens, before: tokens }
      // Several steps: their archives wait and go to the store together (see `ThreadLog.archiveLag`).
      state.log.archiveLag = queue.length > 1
    }
    const chunk = this.#chunks.queue[0]
    if (chunk === undefined || !this.#allActive(chunk.seqs)) {
      this.#endSeries()
      return undefined
    }
    return chunk
  }

  /** Whether every one of `seqs` (sorted) is an active item: a binary search each. */
  #allActive(seqs: readonly number[]): boolean {
    const items = this.#state.log.unfrozenItems
    return seqs.every((seq) => items[indexFromSeq(items, seq)]?.seq === seq)
  }

  /** The active items with these seqs (sorted), frozen: they go to the summarizer. */
  #itemsOf(seqs: readonly number[]): Item<L>[] {
    const items = this.#state.log.unfrozenItems
    const wanted = new Set(seqs)
    const from = indexFromSeq(items, seqs[0]!)
    const found: Item<L>[] = []
    for (let index = from; index < items.length && found.length < seqs.length; index++) {
      const item = items[index]!
      if (!wanted.has(item.seq)) continue
      deepFreeze(item)
      found.push(item)
    }
    return found
  }

  /**
   * One committed step: the summary (with `covers`, the exact seqs it replaces) and the new facts are
   * written first, then the items move to the archive; then the memory slots roll up when over their
   * bounds. The `compaction-end` event carries what it cost.
   */
  async #commit(
    trigger: CompactionTrigger,
    plan: StepPlan,
    tokensBefore: number,
    started: number,
    attempt: number,
  ): Promise<void> {
    const state = this.#state
    state.deps.events.emit('compaction-start', { threadId: state.id, trigger, tokensBefore })
    const items = this.#itemsOf(plan.seqs)
    const seqs = new Set(plan.seqs)
    const known = state.log.memoryItems.filter((item): item is FactItem<L> => item.type === 'fact')
    const recalled = recalledFacts(known)
    let result: SummarizeResult
    try {
      const previous = state.log.latestSummary('episodic')
      result = await state.summarize(items, {
        tier: 'episodic',
        ...(previous === undefined ? {} : { previousSummary: previous.text }),
        // The facts recalled into every context: the summarizer is told not to extract them again.
        ...(recalled.length === 0 ? {} : { knownFacts: recalled }),
      })
    } catch (error) {
      this.#report.end(trigger, tokensBefore, started, { error })
      return
    }
    const fresh = newFacts(known, recalled, result.facts)
    // What the compaction does, kept on its summary: the archived messages leave the history's count.
    let archivedTokens = 0
    for (const item of items) if (item.type === 'message') archivedTokens += state.logMessageTokens(item)
    const summary: Omit<SummaryItem<L>, 'seq'> = {
      ...state.summaryItem('episodic', result.summary, plan.range, plan.turnIds),
      // The exact seqs it replaces: if the archive below is cut short, the summary still stands for them.
      covers: seqRuns(plan.seqs),
      compaction: {
        trigger: trigger === 'manual' ? 'manual' : 'budget',
        tokensBefore,
        tokensAfter: tokensBefore - archivedTokens,
        itemsArchived: plan.seqs.length,
      },
    }
    const written = [summary, ...fresh.map((fact) => state.factItem(fact))] as UnsequencedItem<L>[]
    let superseded = false
    const stored = await this.#writes.write(() => {
      // Another writer may have compacted meanwhile: commit only if every planned item is still active.
      superseded = !this.#allActive(plan.seqs)
      return superseded ? [] : written
    })
    if (superseded) {
      this.#endSeries()
      if (attempt < MAX_WRITE_ATTEMPTS) return this.#step(trigger, attempt + 1)
      this.#report.end(trigger, tokensBefore, started, { skipped: 'superseded' })
      return
    }
    // The last step of a long compaction archives what its earlier steps left waiting, and its own.
    const lastStep = this.#chunks === undefined || this.#chunks.queue.length <= 1
    if (lastStep) state.log.archiveLag = false
    const archived = state.log.archiveLag
      ? await this.#writes.finishArchive()
      : await this.#archive(plan.seqs, seqs)
    const rollup = await rollUpMemory(state, this.#writes)
    const cost = {
      itemsRead: items.length + rollup.itemsRead,
      summariesWritten: 1 + rollup.summariesWritten,
      factsWritten: fresh.length + rollup.factsWritten,
      memoryItems: state.log.memoryItems.length,
    }
    const chunks = this.#chunks
    if (chunks !== undefined) {
      chunks.queue.shift()
      chunks.tokens -= archivedTokens
    }
    if (chunks !== undefined && chunks.queue.length > 0) {
      // A step of a long compaction: the request stands until the last chunk is done.
      this.#report.end(trigger, tokensBefore, started, {
        tokensAfter: chunks.tokens,
        itemsArchived: archived + rollup.itemsArchived,
        itemsWritten: written.length + rollup.summariesWritten + rollup.factsWritten,
        summary: stored[0] as SummaryItem,
        ...cost,
        chunksLeft: chunks.queue.length,
      })
      return
    }
    this.#endSeries()
    this.requested = undefined
    const tokensAfter = state.historyTokens()
    // After a series of steps, what the whole series saved counts.
    const warning = this.#holdIfStillOver(trigger, chunks?.before ?? tokensBefore, tokensAfter)
    this.#report.end(trigger, tokensBefore, started, {
      tokensAfter,
      itemsArchived: archived + rollup.itemsArchived,
      itemsWritten: written.length + rollup.summariesWritten + rollup.factsWritten,
      summary: stored[0] as SummaryItem,
      ...cost,
      ...(warning === undefined ? {} : { warning }),
    })
  }

  /** Moves a step's items to the store's archive (with what earlier steps left waiting); returns how many moved. */
  async #archive(planned: readonly number[], seqs: ReadonlySet<number>): Promise<number> {
    const state = this.#state
    const waiting = state.log.unfinishedArchive.filter((seq) => !seqs.has(seq))
    const all = waiting.length === 0 ? planned : [...waiting, ...planned].sort((a, b) => a - b)
    let archived = 0
    for (let attempt = 1; ; attempt++) {
      try {
        archived = await state.deps.store.archive(state.id, { seqs: all, expectedSeq: state.log.lastSeq })
        break
      } catch (error) {
        // A store that failed after its archive took effect (out of space while cleaning up): done.
        if (!StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT')) {
          if (await this.#archivedAnyway(planned)) break
          // The summary stands for the planned items; the thread's next write archives them.
          throw error
        }
        // The planned turns are older than anything another writer can add: re-read and archive them.
        if (attempt >= MAX_WRITE_ATTEMPTS) throw error
        await this.#writes.refresh()
      }
    }
    state.log.removeArchived(new Set(all))
    return archived
  }

  /** Whether none of `seqs` is in the store's active log any more (false when it cannot be read). */
  async #archivedAnyway(seqs: readonly number[]): Promise<boolean> {
    const state = this.#state
    try {
      const active = await state.deps.store.read(state.id, { fromSeq: seqs[0]!, toSeq: seqs.at(-1)! })
      const planned = new Set(seqs)
      return !active.some((item) => planned.has(item.seq))
    } catch {
      return false
    }
  }

  /**
   * What to compact: whole turns older than the raw tail, and the old steps of the turns after them
   * beyond what the budget keeps raw. The opening items of open scopes are never planned: a scope's
   * view keeps its opening.
   */
  #plan(rawTailTurns: number) {
    const state = this.#state
    const openings = new Set(state.log.scopes.map((scope) => scope.seq))
    const turns = planBudgetCompaction(state.log.items, { rawTailTurns })
    const planned = new Set(turns?.seqs.filter((seq) => !openings.has(seq)))
    const rest = state.log.items.filter((item) => !planned.has(item.seq))
    const steps = planStepCompaction(rest, {
      keepTokens: Math.floor(this.gauge.effectiveBudget() * KEEP_STEPS_SHARE),
      countItem: (item: Item<L>) => (item.type === 'message' ? state.logMessageTokens(item) : 0),
      keep: openings,
    })
    for (const seq of steps?.seqs ?? []) planned.add(seq)
    if (planned.size === 0) return undefined
    const seqs = [...planned].sort((a, b) => a - b)
    const turnIds = [
      ...new Set([...(turns?.turns.map((turn) => turn.turnId) ?? []), ...(steps?.turnIds ?? [])]),
    ]
    return { seqs, turnIds, range: { fromSeq: seqs[0]!, toSeq: seqs.at(-1)! } }
  }

  /**
   * After a budget compaction: whether the last reported prompt, less what the compaction saved, is still
   * over the threshold. Then compacting again on the next turn would not help (the rest of the prompt
   * alone is over it): budget requests wait for the history to grow, and the first time says why.
   */
  #holdIfStillOver(trigger: CompactionTrigger, tokensBefore: number, tokensAfter: number) {
    const budget = this.#state.deps.compaction.budget
    if (budget === false || trigger !== 'budget') return undefined
    const threshold = budget.compactionRatio * this.gauge.effectiveBudget()
    const estimated = this.#reportedInputTokens - (tokensBefore - tokensAfter)
    if (estimated <= threshold) {
      this.#hold = undefined
      return undefined
    }
    const first = this.#hold === undefined
    this.#hold = tokensAfter
    if (!first) return undefined
    // The event's tokensBefore/After count the history only: the message says what else the prompt holds.
    return (
      `The prompt is still about ${Math.round(estimated)} tokens after compacting, over the threshold of ` +
      `${Math.round(threshold)}: the thread's history went from ${tokensBefore} to ${tokensAfter} tokens, and ` +
      'what is sent beside it (the system prompt, tool definitions, the memory slots) with the raw tail ' +
      'alone fills the budget. Budget compaction waits until the history has grown; shorten the system ' +
      'prompt or the tool definitions, lower budget.rawTailTurns or raise the budget. Reported once until ' +
      'a prompt is under the threshold.'
    )
  }

  /**
   * Whether a budget request may go ahead: always, unless compaction was found unable to reach the
   * threshold; then once the history has grown by the budget's headroom above the threshold.
   */
  #holdReleased(budget: { inputBudget: number; compactionRatio: number }): boolean {
    if (this.#hold === undefined) return true
    const growth = Math.max(1, (1 - budget.compactionRatio) * this.gauge.effectiveBudget())
    return this.#state.historyTokens() - this.#hold >= growth
  }
}
