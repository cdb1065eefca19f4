import type { Item } from '@strata-memory/core'
import { shareItemStrings } from '@strata-memory/core/store-kit'
import { ChunkLines } from './chunk-lines'
import { corruptLog } from './file-errors'
import { itemFromRecord, parseLogRecord } from './line-format'

/** Why the end of a log file is not (yet) part of the log. */
export type PendingReason = 'torn-line' | 'unparseable-last-line' | 'incomplete-batch'

export interface ParsedChunk {
  /** The item of each committed line, in order, when the context asks to keep them (else empty). */
  items: Item[]
  /** The text of each committed line, in order (empty with an `onLine`, or without `keepLines`). */
  lines: string[]
  /** The seq of each committed line, in order. */
  seqs: number[]
  /** The offset of each committed line's newline in the chunk. */
  ends: number[]
  /** Bytes of the chunk that are committed lines. */
  committedBytes: number
  pendingReason: PendingReason | undefined
}

interface ChunkContext {
  path: string
  /** The 1-based line number of the chunk's first line, for error messages. */
  firstLine: number
  /** The seq of the last committed line before the chunk. */
  previousSeq: number
  /** Whether to build each line's item (a whole load, which a read takes them from). */
  keepItems: boolean
  /**
   * Each committed line handed over as it commits (a batch's lines once its last line is read), parsed:
   * the record as the line holds it (its `turn_id` not renamed, the item under `item` when wrapped),
   * and its text. Then no line or item is kept (`lines` and `items` stay empty): a reader that keeps
   * none (an audit) lets each line die young.
   */
  onLine?: (record: Record<string, unknown>, text: string, seq: number) => void
  /** Bytes decoded at once (see `ChunkLines`). */
  segmentBytes?: number
  /** Whether to keep each line's text (true unless set false: a cache keeps only where lines are). */
  keepLines?: boolean
}

/**
 * Splits a chunk into committed lines and a pending tail. Lines of a multi-item append are held back
 * until the batch's last line (`batch_end === seq`) is read; a batch cut short by a crash is pending.
 */
export function parseChunk(
  chunk: Buffer,
  { path, firstLine, previousSeq, keepItems, onLine, segmentBytes, keepLines = true }: ChunkContext,
): ParsedChunk {
  const lines: string[] = []
  const seqs: number[] = []
  const ends: number[] = []
  const items: Item[] = []
  let committedBytes = 0
  let position = 0
  let lineNumber = firstLine - 1
  let lastSeq = previousSeq
  let batch:
    | {
        start: number
        end: number
        firstLine: number
        lines: string[]
        seqs: number[]
        values: unknown[]
        ends: number[]
      }
    | undefined

  const texts = new ChunkLines(chunk, segmentBytes)
  /**
   * Bytes after the last newline. A flag, not a comparison after the loop: code that an optimised
   * loop reaches once, at its end, would have no type feedback and drop the optimised code each call.
   */
  let tornLine = false
  while (position < chunk.length) {
    const newline = texts.newlineAfter(position)
    if (newline === -1) {
      tornLine = true
      break
    }
    lineNumber += 1
    const lineStart = position
    const text = texts.line(position, newline)
    position = newline + 1
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      // Only the very last line may be a torn write; anything followed by more data is corruption.
      if (position === chunk.length) {
        return {
          items,
          lines,
          seqs,
          ends,
          committedBytes,
          pendingReason: batch === undefined ? 'unparseable-last-line' : 'incomplete-batch',
        }
      }
      throw corruptLog(path, lineNumber, text.trim() === '' ? 'is empty' : 'is not valid JSON')
    }
    const record = parseLogRecord(value)
    if (typeof record === 'string') throw corruptLog(path, lineNumber, record)
    const { seq, batchEnd } = record
    if (seq <= lastSeq) {
      throw corruptLog(path, lineNumber, `has seq ${seq}, which does not follow the previous seq ${lastSeq}`)
    }
    lastSeq = seq
    if (batch !== undefined && batchEnd !== batch.end) {
      throw corruptLog(
        path,
        lineNumber,
        `does not continue the batch of line ${batch.firstLine}, which ends at seq ${batch.end}`,
      )
    }
    if (batchEnd !== undefined && batchEnd < seq) {
      throw corruptLog(path, lineNumber, `has batch_end ${batchEnd} below its seq ${seq}`)
    }
    if (batch === undefined && batchEnd !== undefined && batchEnd > seq) {
      batch = {
        start: lineStart,
        end: batchEnd,
        firstLine: lineNumber,
        lines: [],
        seqs: [],
        values: [],
        ends: [],
      }
    }
    if (batch === undefined) {
      seqs.push(seq)
      ends.push(newline)
      if (onLine !== undefined) onLine(value as Record<string, unknown>, text, seq)
      else {
        if (keepLines) lines.push(text)
        if (keepItems) items.push(shareItemStrings(itemFromRecord(value as Record<string, unknown>)))
      }
      committedBytes = position
      continue
    }
    if (keepLines || onLine !== undefined) batch.lines.push(text)
    batch.seqs.push(seq)
    batch.ends.push(newline)
    if (keepItems || onLine !== undefined) batch.values.push(value)
    if (seq === batch.end) {
      for (let index = 0; index < batch.seqs.length; index += 1) {
        const batchSeq = batch.seqs[index]!
        seqs.push(batchSeq)
        ends.push(batch.ends[index]!)
        const record = batch.values[index] as Record<string, unknown>
        if (onLine !== undefined) onLine(record, batch.lines[index]!, batchSeq)
        else {
          if (keepLines) lines.push(batch.lines[index]!)
          if (keepItems) items.push(shareItemStrings(itemFromRecord(record)))
        }
      }
      batch = undefined
      committedBytes = position
    }
  }
  const pendingReason: PendingReason | undefined =
    batch !== undefined ? 'incomplete-batch' : tornLine ? 'torn-line' : undefined
  return { items, lines, seqs, ends, committedBytes, pendingReason }
}
