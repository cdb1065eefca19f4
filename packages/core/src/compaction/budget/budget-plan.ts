import { invalidOptions } from '../../errors'
import type { Item, SeqRange } from '../../items'
import { assertInteger, turnBoundaries } from '../turn-boundaries'

/** Options of {@link inputBudget}. */
export interface InputBudgetOptions {
  /** The model's context window in tokens. @default 200_000 */
  maxContextTokens?: number
  /** The most tokens the model may write in one response (the model's max output). */
  maxOutputTokens: number
  /** Tokens kept free for estimation error. @default 2_000 */
  safetyMargin?: number
}

/**
 * The prompt tokens a call may use: `maxContextTokens − maxOutputTokens − safetyMargin`.
 * Throws `STRATA_INVALID_OPTIONS` for non-integers, a non-positive window or output, a negative margin,
 * or a budget that leaves no room for the prompt.
 *
 * @example
 * inputBudget({ maxOutputTokens: 8_192 }) // 189_808
 */
export function inputBudget(options: InputBudgetOptions): number {
  const { maxContextTokens = 200_000, maxOutputTokens, safetyMargin = 2_000 } = options ?? {}
  assertInteger(maxContextTokens, 'maxContextTokens', 1)
  assertInteger(maxOutputTokens, 'maxOutputTokens', 1)
  assertInteger(safetyMargin, 'safetyMargin', 0)
  const budget = maxContextTokens - maxOutputTokens - safetyMargin
  if (budget <= 0) {
    invalidOptions(
      `The input budget is ${budget} tokens: maxContextTokens (${maxContextTokens}) must exceed maxOutputTokens (${maxOutputTokens}) plus safetyMargin (${safetyMargin}). Lower maxOutputTokens or the margin.`,
      { maxContextTokens, maxOutputTokens, safetyMargin },
    )
  }
  return budget
}

/** `none`: within the early threshold; `early`: over `compactionRatio × inputBudget`; `hard`: over the budget. */
export type CompactionUrgency = 'none' | 'early' | 'hard'

/** Options of {@link shouldCompact}. */
export interface ShouldCompactOptions {
  /** Provider-reported prompt tokens of the last response. */
  reportedInputTokens: number
  /** From {@link inputBudget}. */
  inputBudget: number
  /** The share of the budget past which compaction is requested, in (0, 1]. @default 0.8 */
  compactionRatio?: number
}

/**
 * Whether the last call's reported usage asks for a compaction before the next call. Thresholds are
 * exclusive: exactly `compactionRatio × inputBudget` is `none`, exactly `inputBudget` is `early`.
 */
export function shouldCompact(options: ShouldCompactOptions): CompactionUrgency {
  const { reportedInputTokens, inputBudget: budget, compactionRatio = 0.8 } = options ?? {}
  assertInteger(reportedInputTokens, 'reportedInputTokens', 0)
  assertInteger(budget, 'inputBudget', 1)
  if (typeof compactionRatio !== 'number' || !(compactionRatio > 0 && compactionRatio <= 1)) {
    invalidOptions(
      `compactionRatio must be a number in (0, 1] (got ${JSON.stringify(compactionRatio)}), e.g. 0.8.`,
      { compactionRatio },
    )
  }
  if (reportedInputTokens > budget) return 'hard'
  if (reportedInputTokens > compactionRatio * budget) return 'early'
  return 'none'
}

/** Options of {@link planBudgetCompaction}. */
export interface BudgetPlanOptions {
  /** Turns before the current one that stay raw. @default 4 */
  rawTailTurns?: number
}

/** One whole turn to compact: the unit of an episodic summary. */
export interface BudgetTurn {
  turnId: string
  /** Seqs of the turn's history items, oldest first. */
  seqs: number[]
  range: SeqRange
}

/** What a budget compaction should summarize and then archive. */
export interface BudgetPlan {
  /** The turns to compact, in order of their first item. */
  turns: BudgetTurn[]
  /** Every seq of `turns`, oldest first. */
  seqs: number[]
  /** From the first compacted seq to the cut: every history item up to `range.toSeq` goes. */
  range: SeqRange
}

/**
 * Plans a token-budget compaction: the whole turns older than the raw tail, grouped per turn. The raw
 * tail is the current turn plus the `rawTailTurns` turns before it (by order of their first item); the
 * cut moves further back when a turn straddles it (a late tool result) or a pending tool call blocks it.
 * Context-memory items are never part of a plan. Returns undefined when nothing can be compacted.
 *
 * @example
 * const plan = planBudgetCompaction(items) // plan.turns → one episodic summary per group
 */
export function planBudgetCompaction<L extends string>(
  items: readonly Item<L>[],
  options: BudgetPlanOptions = {},
): BudgetPlan | undefined {
  const { rawTailTurns = 4 } = options
  assertInteger(rawTailTurns, 'rawTailTurns', 0)
  const boundaries = turnBoundaries(items)
  const { turns, currentTurnId } = boundaries
  const current = turns.findIndex((turn) => turn.turnId === currentTurnId)
  const firstRaw = current - rawTailTurns
  if (firstRaw <= 0) return undefined

  const cut = boundaries.cutAtOrBefore(turns[firstRaw]!.firstSeq - 1)
  const compacted = boundaries.between(0, cut)
  if (compacted.length === 0) return undefined

  const byTurn = new Map<string, BudgetTurn>()
  for (const item of compacted) {
    const turn = byTurn.get(item.turnId)
    if (turn === undefined) {
      byTurn.set(item.turnId, {
        turnId: item.turnId,
        seqs: [item.seq],
        range: { fromSeq: item.seq, toSeq: item.seq },
      })
    } else {
      turn.seqs.push(item.seq)
      turn.range.toSeq = item.seq
    }
  }
  return {
    turns: [...byTurn.values()],
    seqs: compacted.map((item) => item.seq),
    range: { fromSeq: compacted[0]!.seq, toSeq: cut },
  }
}
