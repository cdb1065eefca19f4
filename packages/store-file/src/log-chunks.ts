import { cleanLength, cleanLine, copyClean } from './clean-lines'

/** Bytes a chunk of small pieces (lines rewritten, or apart from their neighbours) is gathered to. */
const CHUNK_BYTES = 8 * 1024 * 1024

/** A piece at least this long is written as it is, not copied into a chunk. */
const WHOLE_PIECE_BYTES = 64 * 1024

/**
 * Lines (each one's bytes with its newline) as the bytes of a rewritten log, without their
 * `batch_end` (see {@link cleanLine}). Runs of lines kept as they are that lie next to each other in
 * memory (lines read from the log at once) stay one view of those bytes, not a copy, when long; the
 * rest is copied into chunks of about 8 MiB, a line cut short of its `batch_end` straight from its
 * bytes. No line is decoded unless its `batch_end` is not where the store writes it.
 */
export function logChunks(lines: readonly Buffer[]): Buffer[] {
  const chunks: Buffer[] = []
  let gather: Buffer | undefined
  let used = 0
  /** A run of whole lines next to each other in memory, not yet placed. */
  let run: Buffer | undefined
  const flushGather = () => {
    if (gather !== undefined && used > 0) chunks.push(gather.subarray(0, used))
    gather = undefined
    used = 0
  }
  /** Room for `bytes` more in the gathering chunk. */
  const room = (bytes: number): Buffer => {
    if (gather !== undefined && used + bytes > gather.length) flushGather()
    gather ??= Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes))
    return gather
  }
  const placeRun = () => {
    if (run === undefined) return
    if (run.length >= WHOLE_PIECE_BYTES) {
      flushGather()
      chunks.push(run)
    } else {
      // The chunk first: making room may start a new one, and `used` with it.
      const target = room(run.length)
      used += run.copy(target, used)
    }
    run = undefined
  }
  for (const line of lines) {
    const clean = cleanLine(line)
    if (clean === -1) {
      if (
        run !== undefined &&
        run.buffer === line.buffer &&
        run.byteOffset + run.length === line.byteOffset
      ) {
        run = Buffer.from(run.buffer, run.byteOffset, run.length + line.length)
      } else {
        placeRun()
        run = line
      }
      continue
    }
    placeRun()
    const target = room(cleanLength(line, clean))
    used += copyClean(line, clean, target, used)
  }
  placeRun()
  flushGather()
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
