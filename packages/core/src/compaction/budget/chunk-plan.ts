import type { Item, SeqRange } from '../../items'
import { assertInteger, turnBoundaries } from '../turn-boundaries'

/**
 * How many history items one step of a long compaction summarizes and archives: a step's summarizer
 * call and store write stay short, so appends and contexts queued behind it wait little.
 */
export const CHUNK_ITEMS = 4_096

/** One committed step of a long compaction: whole turns, oldest first. */
export interface BudgetChunk {
  /** The seqs it summarizes and archives, oldest first. */
  seqs: number[]
  turnIds: string[]
  range: SeqRange
}

/** Options of {@link planChunks}. */
export interface ChunkPlanOptions {
  /** Turns before the current one that stay raw. @default 4 */
  rawTailTurns?: number
  /** Items per chunk (a chunk ends at the first valid cut at or after this many). @default {@link CHUNK_ITEMS} */
  chunkItems?: number
  /** Seqs never compacted (the opening items of open scopes). */
  keep?: ReadonlySet<number>
}

/**
 * Splits the first compaction of a long history into chunks: the whole turns older than the raw tail
 * (what {@link planBudgetCompaction} plans), cut at valid cuts only (no turn split, no tool call apart
 * from its result) about every `chunkItems` history items. Undefined when the plan fits in two
 * chunks: one step does it. Linear in the items once; each chunk is then a step of its own size.
 *
 * @example
 * planChunks(items, { rawTailTurns: 4 }) // [{ seqs: [1, …, 4100], … }, { seqs: [4101, …], … }, …]
 */
export function planChunks<L extends string>(
  items: readonly Item<L>[],
  { rawTailTurns = 4, chunkItems = CHUNK_ITEMS, keep = new Set() }: ChunkPlanOptions = {},
): BudgetChunk[] | undefined {
  assertInteger(rawTailTurns, 'rawTailTurns', 0)
  assertInteger(chunkItems, 'chunkItems', 1)
  const boundaries = turnBoundaries(items)
  const { turns, currentTurnId, history } = boundaries
  const current = turns.findIndex((turn) => turn.turnId === currentTurnId)
  const firstRaw = current - rawTailTurns
  if (firstRaw <= 0) return undefined
  const finalCut = boundaries.cutAtOrBefore(turns[firstRaw]!.firstSeq - 1)
  // The history items up to the final cut: a binary search would do, but the cut is near the end.
  let end = history.length
  while (end > 0 && history[end - 1]!.seq > finalCut) end--
  if (end <= 2 * chunkItems) return undefined

  const chunks: BudgetChunk[] = []
  let previousCut = 0
  let target = 0
  while (previousCut < finalCut) {
    target = Math.min(end - 1, target + chunkItems)
    let cut = boundaries.cutAtOrBefore(history[target]!.seq)
    // No valid cut inside this stretch (a turn longer than a chunk): the chunk takes the next one.
    while (cut <= previousCut && target < end - 1) {
      target = Math.min(end - 1, target + chunkItems)
      cut = boundaries.cutAtOrBefore(history[target]!.seq)
    }
    if (cut <= previousCut) break
    const taken = boundaries.between(previousCut, cut).filter((item) => !keep.has(item.seq))
    previousCut = cut
    if (taken.length === 0) continue
    const turnIds = [...new Set(taken.map((item) => item.turnId))]
    chunks.push({
      seqs: taken.map((item) => item.seq),
      turnIds,
      range: { fromSeq: taken[0]!.seq, toSeq: taken.at(-1)!.seq },
    })
  }
  return chunks.length > 1 ? chunks : undefined
}
