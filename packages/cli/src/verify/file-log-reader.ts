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
}

/**
 * The committed lines of a JSONL log file's text, in order; problems go to `report`: a torn tail
 * (bytes without a final newline, an unparseable last line, a batch without its last line), a corrupt
 * line in the middle (not JSON, not an object with a whole-number seq, a broken batch), a seq that does
 * not increase. Lines of a batch are held back until the batch's last line.
 */
export function* committedLines(
  text: string,
  name: string,
  report: LogSink['report'],
  progress: (characters: number) => void = () => undefined,
): Generator<CommittedLine> {
  const lastNewline = text.lastIndexOf('\n')
  if (lastNewline < text.length - 1) {
    report(
      'torn-tail',
      `${name} ends with ${text.length - lastNewline - 1} characters without a final newline.`,
      {
        file: name,
      },
    )
  }
  let previousSeq = 0
  let batch: CommittedLine[] = []
  let batchEnd = 0
  let start = 0
  let lineNumber = 0
  while (start <= lastNewline) {
    const end = text.indexOf('\n', start)
    lineNumber++
    const raw = text.slice(start, end)
    start = end + 1
    if ((lineNumber & 0x3fff) === 0) progress(start)
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch {
      if (start > lastNewline && batch.length === 0) {
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
    const committed: CommittedLine = { seq: seq as number, record, text: raw, line: lineNumber }
    if (committed.seq <= previousSeq) {
      report('seq-order', `${name} line ${lineNumber} has seq ${committed.seq} after seq ${previousSeq}.`, {
        file: name,
        line: lineNumber,
        seq: committed.seq,
      })
      continue
    }
    previousSeq = committed.seq
    const lineBatchEnd = typeof record.batch_end === 'number' ? record.batch_end : undefined
    if (batch.length > 0 && lineBatchEnd !== batchEnd) {
      report('corrupt-line', `${name} line ${lineNumber} breaks the batch ending at seq ${batchEnd}.`, {
        file: name,
        line: lineNumber,
        seq: committed.seq,
      })
      yield* batch
      batch = []
    }
    if (lineBatchEnd !== undefined && lineBatchEnd !== committed.seq) {
      batchEnd = lineBatchEnd
      batch.push(committed)
      continue
    }
    if (batch.length > 0) {
      yield* batch
      batch = []
    }
    yield committed
  }
  if (batch.length > 0) {
    report(
      'torn-tail',
      `${name} ends with ${batch.length} line${batch.length === 1 ? '' : 's'} of a batch (seq ${batch[0]?.seq}–${batchEnd}) without its last line.`,
      { file: name, line: batch[0]?.line ?? lineNumber },
    )
  }
}

/** A log file's text, or undefined when there is no such file. */
export async function readLogText(path: string): Promise<string | undefined> {
  return (await readIfThere(path))?.toString('utf8')
}

/**
 * Reads one JSONL log file of the file store by itself, read-only (never through the store, which
 * would move a torn tail aside), and feeds its committed lines and problems to `sink` (see
 * {@link committedLines}). Returns the file's size in characters.
 */
export async function readLogFile(
  sink: LogSink,
  source: LogSource,
  path: string,
  name: string,
  progress: (characters: number) => void = () => undefined,
): Promise<number> {
  const text = await readLogText(path)
  if (text === undefined) return 0
  const report = sink.report.bind(sink)
  for (const line of committedLines(text, name, report, progress)) {
    sink.add(source, line.seq, line.record, { file: name, line: line.line, text: line.text })
  }
  progress(text.length)
  return text.length
}
