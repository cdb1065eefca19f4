import { invalidOptions, shownValue } from '../errors'
import type { Item } from '../items'
import { startsTurn } from '../items/turns'
import { isContextMemoryItem } from '../views'

/** One turn of the history: its id and the seqs of its items, oldest first. */
export interface TurnSpan {
  turnId: string
  /** Seq of the turn's first history item. */
  firstSeq: number
  /** Seq of the turn's last history item (a late tool result can put it after later turns' items). */
  lastSeq: number
  seqs: number[]
}

/**
 * Where compaction may cut a thread's history. A cut at seq `c` consumes every history item with
 * `seq ≤ c`; it is valid when every turn is wholly on one side of it, every tool call is on the same
 * side as its result, and neither the current turn nor a turn with a pending call is consumed.
 */
export interface TurnBoundaries<L extends string = string> {
  /** The history items (context-memory items left out), oldest first. */
  readonly history: readonly Item<L>[]
  /** The turns, in order of their first item. */
  readonly turns: readonly TurnSpan[]
  /** The turn of the newest user message (the last turn); undefined for an empty history. */
  readonly currentTurnId: string | undefined
  /** Turns that hold a tool call with no result among the items. */
  readonly pendingTurnIds: ReadonlySet<string>
  /**
   * The highest seq a cut may reach: one below the first item of the current turn or of the first
   * turn with a pending call, whichever comes first; 0 when nothing may be consumed.
   */
  readonly limitSeq: number
  /** The largest valid cut `≤ candidateSeq`, or 0 when no history item may be consumed. O(log n). */
  cutAtOrBefore(candidateSeq: number): number
  /** The history items with `afterSeq < seq ≤ throughSeq`, oldest first. */
  between(afterSeq: number, throughSeq: number): Item<L>[]
}

/**
 * Analyses the history once, in linear time, so that every later cut query is a binary search.
 * `items` is the active log (context-memory items may be included; they are ignored) in seq order.
 *
 * @example
 * const boundaries = turnBoundaries(items)
 * boundaries.cutAtOrBefore(65) // 64 when seq 65 opens a turn that continues past it
 */
export function turnBoundaries<L extends string>(items: readonly Item<L>[]): TurnBoundaries<L> {
  const history = items.filter((item) => !isContextMemoryItem(item))
  if (history.some((item, index) => index > 0 && history[index - 1]!.seq >= item.seq)) {
    history.sort((left, right) => left.seq - right.seq)
  }

  const spans = new Map<string, TurnSpan>()
  const resultSeqs = new Map<string, number>()
  for (const item of history) {
    const span = spans.get(item.turnId)
    if (span === undefined) {
      spans.set(item.turnId, { turnId: item.turnId, firstSeq: item.seq, lastSeq: item.seq, seqs: [item.seq] })
    } else {
      span.lastSeq = item.seq
      span.seqs.push(item.seq)
    }
    if (item.type !== 'message') continue
    for (const part of item.content) {
      if (part.type === 'tool-result' && !resultSeqs.has(part.toolCallId))
        resultSeqs.set(part.toolCallId, item.seq)
    }
  }

  const pendingTurnIds = new Set<string>()
  // How far each item reaches: the end of its turn, and the result of any call it makes (a result
  // filed under another turn id must still stay with its call).
  const bestCuts: number[] = []
  let prefixReach = 0
  let bestCut = 0
  let currentTurnId: string | undefined
  for (const item of history) {
    let reach = spans.get(item.turnId)!.lastSeq
    if (item.type === 'message') {
      if (startsTurn(item)) currentTurnId = item.turnId
      for (const part of item.content) {
        if (part.type !== 'tool-call') continue
        const resultSeq = resultSeqs.get(part.toolCallId)
        if (resultSeq === undefined) pendingTurnIds.add(item.turnId)
        else reach = Math.max(reach, resultSeq)
      }
    }
    prefixReach = Math.max(prefixReach, reach)
    if (prefixReach <= item.seq) bestCut = item.seq
    bestCuts.push(bestCut)
  }

  const turns = [...spans.values()]
  // With no user message at all (a preamble only), the last turn is the current one.
  currentTurnId ??= turns.at(-1)?.turnId
  let limitSeq = Number.POSITIVE_INFINITY
  for (const turnId of [currentTurnId, ...pendingTurnIds]) {
    if (turnId !== undefined) limitSeq = Math.min(limitSeq, spans.get(turnId)!.firstSeq - 1)
  }
  if (limitSeq === Number.POSITIVE_INFINITY) limitSeq = 0

  /** Index of the last history item with `seq ≤ seq`, or -1. */
  const lastIndexAtOrBefore = (seq: number) => {
    let low = 0
    let high = history.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (history[middle]!.seq <= seq) low = middle + 1
      else high = middle
    }
    return low - 1
  }

  return {
    history,
    turns,
    currentTurnId,
    pendingTurnIds,
    limitSeq,
    cutAtOrBefore(candidateSeq) {
      if (typeof candidateSeq !== 'number' || Number.isNaN(candidateSeq)) {
        invalidOptions(`cutAtOrBefore() needs a seq number (got ${shownValue(candidateSeq)}).`, {
          candidateSeq,
        })
      }
      const index = lastIndexAtOrBefore(Math.min(candidateSeq, limitSeq))
      return index < 0 ? 0 : bestCuts[index]!
    },
    between(afterSeq, throughSeq) {
      return history.slice(lastIndexAtOrBefore(afterSeq) + 1, lastIndexAtOrBefore(throughSeq) + 1)
    },
  }
}

/** Throws `STRATA_INVALID_OPTIONS` unless `value` is an integer ≥ `minimum`. */
export function assertInteger(value: unknown, name: string, minimum: number): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum) {
    invalidOptions(`${name} must be an integer ≥ ${minimum} (got ${JSON.stringify(value)}).`, {
      [name]: value,
    })
  }
}
