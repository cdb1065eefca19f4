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

interface PendingLine {
  seq: number
  item: Record<string, unknown>
  line: number
  text: string
}

/**
 * Reads one JSONL log file of the file store by itself, read-only (never through the store, which
 * would move a torn tail aside), and feeds its lines to `audit` (the checks of verify, or an export's collector). Reports a torn tail (bytes without
 * a final newline, an unparseable last line, a batch without its last line), a corrupt line in the
 * middle (not JSON, not an object with a whole-number seq, a seq that does not increase, a broken
 * batch). Calls `progress` with the bytes read so far.
 */
export async function readLogFile(
  audit: LogSink,
  source: LogSource,
  path: string,
  name: string,
  progress: (bytes: number) => void = () => undefined,
): Promise<number> {
  const buffer = await readIfThere(path)
  if (buffer === undefined) return 0
  const text = buffer.toString('utf8')
  const lastNewline = text.lastIndexOf('\n')
  if (lastNewline < text.length - 1) {
    audit.report(
      'torn-tail',
      `${name} ends with ${text.length - lastNewline - 1} characters without a final newline.`,
      {
        file: name,
      },
    )
  }
  let previousSeq = 0
  let batch: PendingLine[] = []
  let batchEnd = 0
  let start = 0
  let lineNumber = 0
  while (start <= lastNewline) {
    const end = text.indexOf('\n', start)
    lineNumber++
    const raw = text.slice(start, end)
    start = end + 1
    if ((lineNumber & 0x3fff) === 0) progress(start)
    const isLast = start > lastNewline
    let line: unknown
    try {
      line = JSON.parse(raw)
    } catch {
      if (isLast && batch.length === 0) {
        audit.report('torn-tail', `${name} line ${lineNumber} (the last) does not parse.`, {
          file: name,
          line: lineNumber,
        })
      } else {
        audit.report('corrupt-line', `${name} line ${lineNumber} does not parse as JSON.`, {
          file: name,
          line: lineNumber,
        })
      }
      continue
    }
    if (
      typeof line !== 'object' ||
      line === null ||
      Array.isArray(line) ||
      !Number.isSafeInteger((line as { seq?: unknown }).seq)
    ) {
      audit.report('corrupt-line', `${name} line ${lineNumber} is not an object with a whole-number seq.`, {
        file: name,
        line: lineNumber,
      })
      continue
    }
    const record = line as Record<string, unknown>
    const seq = record.seq as number
    if (seq <= previousSeq) {
      audit.report('seq-order', `${name} line ${lineNumber} has seq ${seq} after seq ${previousSeq}.`, {
        file: name,
        line: lineNumber,
        seq,
      })
      continue
    }
    previousSeq = seq
    const lineBatchEnd = typeof record.batch_end === 'number' ? record.batch_end : undefined
    if (batch.length > 0 && lineBatchEnd !== batchEnd) {
      audit.report('corrupt-line', `${name} line ${lineNumber} breaks the batch ending at seq ${batchEnd}.`, {
        file: name,
        line: lineNumber,
        seq,
      })
      for (const pending of batch)
        audit.add(source, pending.seq, pending.item, { file: name, line: pending.line, text: pending.text })
      batch = []
    }
    if (lineBatchEnd !== undefined && lineBatchEnd !== seq) {
      batchEnd = lineBatchEnd
      batch.push({ seq, item: record, line: lineNumber, text: raw })
      continue
    }
    for (const pending of batch)
      audit.add(source, pending.seq, pending.item, { file: name, line: pending.line, text: pending.text })
    batch = []
    audit.add(source, seq, record, { file: name, line: lineNumber, text: raw })
  }
  if (batch.length > 0) {
    audit.report(
      'torn-tail',
      `${name} ends with ${batch.length} lines of a batch (seq ${batch[0]?.seq}–${batchEnd}) without its last line.`,
      { file: name, line: batch[0]?.line ?? lineNumber },
    )
  }
  progress(buffer.length)
  return buffer.length
}
