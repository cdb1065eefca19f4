import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { LogSource } from './log-audit'
import type { ProblemKind } from './verify-problem'

/** What a log reader feeds: each committed line's record, and each problem found. */
export interface LogSink {
  report(kind: ProblemKind, message: string, where?: { file?: string; line?: number; seq?: number }): void
  /** A committed line, parsed: the store's line format (see `@strata-memory/store-file`). */
  add(
    source: LogSource,
    seq: number,
    record: Record<string, unknown>,
    where: { file: string; line: number; text: string },
  ): void
}

async function readIfThere(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/** A committed line of a log file: its seq, the parsed record, the raw text and the 1-based line number. */
export interface CommittedLine {
  seq: number
  record: Record<string, unknown>
  text: string
  line: number
  /** The file it was read from, as shown in messages (inside the thread folder). */
  file?: string
}

/**
 * Where a read of a file a chunk at a time is: the seq and line number reached, a batch still open,
 * and whether this chunk is the file's last (only there can a line be a torn tail).
 */
export interface LinesState {
  previousSeq: number
  lineNumber: number
  batch: CommittedLine[]
  batchEnd: number
  final: boolean
}

/** A read starting at line `lineNumber + 1` of a file, with no seq before it. */
export const freshState = (lineNumber = 0): LinesState => ({
  previousSeq: 0,
  lineNumber,
  batch: [],
  batchEnd: 0,
  final: true,
})

/**
 * The committed lines of a JSONL log file's text, in order; problems go to `report`: a torn tail
 * (bytes without a final newline, an unparseable last line, a batch without its last line), a corrupt
 * line in the middle (not JSON, not an object with a whole-number seq, a broken batch), a seq that does
 * not increase. Lines of a batch are held back until the batch's last line. `state` carries a read
 * over several chunks of one file (each but the last ending with a newline).
 */
export function* committedLines(
  text: string,
  name: string,
  report: LogSink['report'],
  progress: (characters: number) => void = () => undefined,
  state: LinesState = freshState(),
): Generator<CommittedLine> {
  const lastNewline = text.lastIndexOf('\n')
  if (state.final && lastNewline < text.length - 1) {
    report(
      'torn-tail',
      `${name} ends with ${text.length - lastNewline - 1} characters without a final newline.`,
      {
        file: name,
      },
    )
  }
  let start = 0
  while (start <= lastNewline) {
    const end = text.indexOf('\n', start)
    const lineNumber = ++state.lineNumber
    const raw = text.slice(start, end)
    start = end + 1
    if ((lineNumber & 0x3fff) === 0) progress(start)
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch {
      if (state.final && start > lastNewline && state.batch.length === 0) {
        report('torn-tail', `${name} line ${lineNumber} (the last) does not parse.`, {
          file: name,
          line: lineNumber,
        })
      } else {
        report('corrupt-line', `${name} line ${lineNumber} does not parse as JSON.`, {
          file: name,
          line: lineNumber,
        })
      }
      continue
    }
    const seq = (value as { seq?: unknown } | null)?.seq
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Number.isSafeInteger(seq)) {
      report('corrupt-line', `${name} line ${lineNumber} is not an object with a whole-number seq.`, {
        file: name,
        line: lineNumber,
      })
      continue
    }
    const record = value as Record<string, unknown>
    const committed: CommittedLine = { seq: seq as number, record, text: raw, line: lineNumber, file: name }
    if (committed.seq <= state.previousSeq) {
      report(
        'seq-order',
        `${name} line ${lineNumber} has seq ${committed.seq} after seq ${state.previousSeq}.`,
        {
          file: name,
          line: lineNumber,
          seq: committed.seq,
        },
      )
      continue
    }
    state.previousSeq = committed.seq
    const lineBatchEnd = typeof record.batch_end === 'number' ? record.batch_end : undefined
    if (state.batch.length > 0 && lineBatchEnd !== state.batchEnd) {
      report('corrupt-line', `${name} line ${lineNumber} breaks the batch ending at seq ${state.batchEnd}.`, {
        file: name,
        line: lineNumber,
        seq: committed.seq,
      })
      yield* state.batch
      state.batch = []
    }
    if (lineBatchEnd !== undefined && lineBatchEnd !== committed.seq) {
      state.batchEnd = lineBatchEnd
      state.batch.push(committed)
      continue
    }
    if (state.batch.length > 0) {
      yield* state.batch
      state.batch = []
    }
    yield committed
  }
  if (state.final && state.batch.length > 0) {
    const { batch } = state
    report(
      'torn-tail',
      `${name} ends with ${batch.length} line${batch.length === 1 ? '' : 's'} of a batch (seq ${batch[0]?.seq}–${state.batchEnd}) without its last line.`,
      { file: name, line: batch[0]?.line ?? state.lineNumber },
    )
  }
}

/** A log file's text, or undefined when there is no such file. */
export async function readLogText(path: string): Promise<string | undefined> {
  return (await readIfThere(path))?.toString('utf8')
}

/** Bytes read at once: whole lines, far below the longest string Node.js can make. */
const CHUNK_BYTES = 16 * 1024 * 1024

/** Reads `length` bytes at `position` of an open file, synchronously. */
function readAt(descriptor: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length)
  let filled = 0
  while (filled < length) {
    const read = readSync(descriptor, buffer, filled, length - filled, position + filled)
    if (read === 0) break
    filled += read
  }
  return buffer.subarray(0, filled)
}

/**
 * The committed lines of a log file (`committedLines`), read synchronously a chunk of whole lines at a
 * time: no string of the whole file, so a file of any size is read. `progress` gets bytes read.
 */
export function* committedLinesOfFile(
  path: string,
  name: string,
  report: LogSink['report'],
  progress: (bytes: number) => void = () => undefined,
): Generator<CommittedLine> {
  if (!existsSync(path)) return
  const descriptor = openSync(path, 'r')
  try {
    const size = statSync(path).size
    const state = freshState()
    let position = 0
    while (position < size) {
      const chunk = readAt(descriptor, position, Math.min(CHUNK_BYTES, size - position))
      const last = chunk.lastIndexOf(0x0a)
      const final = position + chunk.length >= size || last === -1
      const end = final ? chunk.length : last + 1
      state.final = final
      yield* committedLines(chunk.toString('utf8', 0, end), name, report, () => undefined, state)
      position += end
      progress(position)
      if (final) break
    }
  } finally {
    closeSync(descriptor)
  }
}

/**
 * Reads one JSONL log file of the file store by itself, read-only (never through the store, which
 * would move a torn tail aside), and feeds its committed lines and problems to `sink` (see
 * {@link committedLines}). Returns the file's size in bytes.
 */
export async function readLogFile(
  sink: LogSink,
  source: LogSource,
  path: string,
  name: string,
  progress: (bytes: number) => void = () => undefined,
): Promise<number> {
  let read = 0
  for (const line of committedLinesOfFile(path, name, sink.report.bind(sink), (bytes) => {
    read = bytes
    progress(bytes)
  })) {
    sink.add(source, line.seq, line.record, { file: name, line: line.line, text: line.text })
  }
  return read
}
