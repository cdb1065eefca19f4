import { withoutBatchEndBytes } from './line-format'

/** Bytes a chunk of small pieces (lines rewritten, or apart from their neighbours) is gathered to. */
const CHUNK_BYTES = 8 * 1024 * 1024

/** A piece at least this long is written as it is, not copied into a chunk. */
const WHOLE_PIECE_BYTES = 64 * 1024

/**
 * Lines (each one's bytes with its newline) as the bytes of a rewritten log, without their
 * `batch_end` (see `withoutBatchEnd`). Lines next to each other in memory (a run of lines read from
 * the log at once) stay one view of those bytes, not a copy; the rest are gathered into chunks of
 * about 8 MiB. No line is decoded unless its `batch_end` is not where the store writes it.
 */
export function logChunks(lines: readonly Buffer[]): Buffer[] {
  const pieces: Buffer[] = []
  for (const line of lines) {
    const clean = withoutBatchEndBytes(line)
    const last = pieces.at(-1)
    if (
      last !== undefined &&
      last.buffer === clean.buffer &&
      last.byteOffset + last.length === clean.byteOffset
    ) {
      pieces[pieces.length - 1] = Buffer.from(last.buffer, last.byteOffset, last.length + clean.length)
    } else {
      pieces.push(clean)
    }
  }
  const chunks: Buffer[] = []
  let group: Buffer[] = []
  let groupBytes = 0
  const flush = () => {
    if (group.length > 0) chunks.push(group.length === 1 ? group[0]! : Buffer.concat(group, groupBytes))
    group = []
    groupBytes = 0
  }
  for (const piece of pieces) {
    if (piece.length >= WHOLE_PIECE_BYTES) {
      flush()
      chunks.push(piece)
      continue
    }
    group.push(piece)
    groupBytes += piece.length
    if (groupBytes >= CHUNK_BYTES) flush()
  }
  flush()
  return chunks
}

/** The last `count` bytes of `chunks` (fewer when they hold fewer), copied. */
export function lastBytes(chunks: readonly Buffer[], count: number): Buffer {
  const tail: Buffer[] = []
  let length = 0
  for (let index = chunks.length - 1; index >= 0 && length < count; index -= 1) {
    const chunk = chunks[index]!
    const piece = chunk.subarray(Math.max(0, chunk.length - (count - length)))
    tail.unshift(piece)
    length += piece.length
  }
  return Buffer.concat(tail, length)
}
