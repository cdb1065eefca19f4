import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs'
import { join } from 'node:path'
import {
  type CommittedLine,
  committedLines,
  committedLinesOfFile,
  freshState,
  type LogSink,
} from './file-log-reader'

/**
 * The file store's archive, read by itself (read-only): `archive/index.jsonl` names parts of the data
 * files `archive/NNNNNN.jsonl` (and, for a thread of the first layout, of `raw_traces_archive.jsonl`,
 * which is read whole while no index line names it). See `@strata-memory/store-file`'s README.
 */
const INDEX = 'archive/index.jsonl'
const LEGACY = 'raw_traces_archive.jsonl'
const DATA_FILE = /^archive\/\d{6,}\.jsonl$/

interface Part {
  file: string
  offset: number
  bytes: number
  from: number
  to: number
  count: number
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

/** The committed parts the index names, in its order; a torn or corrupt index line is reported. */
function readIndex(folder: string, report: LogSink['report']): Part[] {
  const path = join(folder, INDEX)
  if (!existsSync(path)) return []
  const text = readFileSync(path, 'utf8')
  const parts: Part[] = []
  let batch: Part[] = []
  let rest = 0
  const lines = text.split('\n')
  const torn = lines.pop()
  if (torn !== '') {
    report('torn-tail', `${INDEX} ends with ${torn?.length} characters without a final newline.`, {
      file: INDEX,
    })
  }
  lines.forEach((raw, index) => {
    const line = index + 1
    let value: Record<string, unknown> | undefined
    try {
      value = JSON.parse(raw) as Record<string, unknown>
    } catch {}
    const { file, offset, bytes, from, to, count } = value ?? {}
    const valid =
      typeof file === 'string' &&
      (file === LEGACY || DATA_FILE.test(file)) &&
      [offset, bytes, from, to, count, value?.rest].every(isCount)
    if (!valid) {
      const last = index === lines.length - 1
      report(
        last ? 'torn-tail' : 'corrupt-line',
        last
          ? `${INDEX} line ${line} (the last) does not parse.`
          : `${INDEX} line ${line} is not an index line.`,
        { file: INDEX, line },
      )
      return
    }
    if (batch.length > 0 && value!.rest !== rest - 1) {
      report('corrupt-line', `${INDEX} line ${line} breaks the archive of the lines before it.`, {
        file: INDEX,
        line,
      })
      batch = []
    }
    batch.push({ file, offset, bytes, from, to, count } as Part)
    rest = value!.rest as number
    if (rest === 0) {
      parts.push(...batch)
      batch = []
    }
  })
  if (batch.length > 0) {
    report(
      'torn-tail',
      `${INDEX} ends with ${batch.length} line${batch.length === 1 ? '' : 's'} of an archive without its last line (an archive interrupted before its commit).`,
      { file: INDEX },
    )
  }
  return parts
}

/** Bytes of the archive's files, for a progress bar. */
export function archiveSize(folder: string): number {
  const sizeOf = (path: string) => (existsSync(path) ? statSync(path).size : 0)
  const data = existsSync(join(folder, 'archive'))
    ? readdirSync(join(folder, 'archive')).map((name) => sizeOf(join(folder, 'archive', name)))
    : []
  return sizeOf(join(folder, LEGACY)) + data.reduce((sum, size) => sum + size, 0)
}

/**
 * The archive's committed lines, oldest first, each with the file it is in; problems go to `report`:
 * a torn index tail or data bytes no index line names (an archive interrupted before its commit, both
 * repaired by the store), a part that does not hold what its index line says, and what
 * `committedLines` finds in the lines themselves. Read a part at a time; `progress` gets bytes read.
 */
export function* archivedLines(
  folder: string,
  report: LogSink['report'],
  progress: (bytes: number) => void = () => undefined,
): Generator<CommittedLine> {
  const parts = readIndex(folder, report)
  const legacyUnrecorded = !parts.some((part) => part.file === LEGACY) && existsSync(join(folder, LEGACY))
  const ordered =
    parts.every((part, index) => index === 0 || part.from > parts[index - 1]!.to) &&
    (!legacyUnrecorded || parts.length === 0)
  const lines = readAll(folder, parts, legacyUnrecorded, report, progress)
  if (ordered) {
    yield* lines
    return
  }
  // Archived out of order (a rewind before a compaction): sorted here, as the store's reads are.
  yield* [...lines].sort((left, right) => left.seq - right.seq)
}

function* readAll(
  folder: string,
  parts: readonly Part[],
  legacyUnrecorded: boolean,
  report: LogSink['report'],
  progress: (bytes: number) => void,
): Generator<CommittedLine> {
  let done = 0
  if (legacyUnrecorded) {
    yield* committedLinesOfFile(join(folder, LEGACY), LEGACY, report, (bytes) => progress(bytes))
    done = statSync(join(folder, LEGACY)).size
  }
  const lineBase = new Map<string, number>()
  const ends = new Map<string, number>()
  for (const part of parts) {
    const bytes = readPart(join(folder, part.file), part)
    done += bytes.length
    const at = `${part.file} at byte ${part.offset} (seqs ${part.from}–${part.to})`
    if (bytes.length !== part.bytes || bytes[bytes.length - 1] !== 0x0a) {
      report('corrupt-line', `${at} is cut short: ${INDEX} names ${part.bytes} bytes.`, { file: part.file })
    }
    const state = freshState(lineBase.get(part.file) ?? 0)
    const found = [...committedLines(bytes.toString('utf8'), part.file, report, () => undefined, state)]
    lineBase.set(part.file, state.lineNumber)
    ends.set(part.file, Math.max(ends.get(part.file) ?? 0, part.offset + part.bytes))
    if (found.length !== part.count || found[0]?.seq !== part.from || found.at(-1)?.seq !== part.to) {
      report('corrupt-line', `${at} holds ${found.length} lines, not the ${part.count} ${INDEX} names.`, {
        file: part.file,
      })
    }
    yield* found
    progress(done)
  }
  // Bytes past the last part of a data file (or a data file no part names) were never committed.
  const folderPath = join(folder, 'archive')
  if (!existsSync(folderPath)) return
  for (const name of readdirSync(folderPath).sort()) {
    const file = `archive/${name}`
    if (!DATA_FILE.test(file)) continue
    const extra = statSync(join(folder, file)).size - (ends.get(file) ?? 0)
    if (extra > 0) {
      report(
        'torn-tail',
        `${file} ends with ${extra} bytes no line of ${INDEX} names (an archive interrupted before its commit; the items are still in the active log).`,
        { file },
      )
    }
  }
}

function readPart(path: string, part: Part): Buffer {
  const descriptor = openSync(path, 'r')
  try {
    const buffer = Buffer.allocUnsafe(part.bytes)
    let filled = 0
    while (filled < part.bytes) {
      const read = readSync(descriptor, buffer, filled, part.bytes - filled, part.offset + filled)
      if (read === 0) break
      filled += read
    }
    return buffer.subarray(0, filled)
  } finally {
    closeSync(descriptor)
  }
}

/** Feeds the archive's committed lines and problems to `sink` (see {@link archivedLines}). */
export function readArchiveFiles(
  sink: LogSink,
  folder: string,
  progress: (bytes: number) => void = () => undefined,
): void {
  for (const line of archivedLines(folder, sink.report.bind(sink), progress)) {
    sink.add('archive', line.seq, line.record, {
      file: line.file ?? LEGACY,
      line: line.line,
      text: line.text,
    })
  }
}
