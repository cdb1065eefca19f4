import { type FileHandle, open, readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { StrataError } from '@strata-memory/core'
import type { AuditSource, ThreadAuditor } from '@strata-memory/core/store-kit'
import { partLines } from './archive-files'
import { ArchiveIndex } from './archive-index'
import type { ArchivePart } from './archive-parts'
import { ChunkLines } from './chunk-lines'
import { readRange } from './durable-fs'
import { storeFailed } from './file-errors'
import { parseLogRecord } from './line-format'
import { INDEX_FILE, LEGACY_ARCHIVE_FILE } from './thread-files'

/**
 * Where one committed line was read, for the auditor: its record as parsed (the line's own keys, the
 * item under `item` when wrapped), its text (the item's JSON is cut from it), and its place.
 */
export type Sink = (
  source: AuditSource,
  record: Record<string, unknown>,
  text: string,
  file: string,
  line: number | undefined,
) => void

/** Bytes of adjacent parts read at once: a few reads for an archive of many parts. */
const SPAN_BYTES = 16 * 1024 * 1024

/**
 * The archive's parts with their bytes, in the index's order: parts that follow each other in one data
 * file are read together (up to {@link SPAN_BYTES}), each data file opened once.
 */
async function* partsWithBytes(
  index: ArchiveIndex,
): AsyncGenerator<{ part: ArchivePart; span: Buffer; at: number }> {
  const parts = index.allParts
  let handle: FileHandle | undefined
  let handleFile: string | undefined
  try {
    for (let first = 0; first < parts.length; ) {
      const { file, offset } = parts[first]!
      let last = first
      let end = offset + parts[first]!.bytes
      while (
        last + 1 < parts.length &&
        parts[last + 1]!.file === file &&
        parts[last + 1]!.offset === end &&
        end + parts[last + 1]!.bytes - offset <= SPAN_BYTES
      ) {
        last++
        end += parts[last]!.bytes
      }
      const path = join(index.directory, file)
      let bytes: Buffer
      try {
        if (handleFile !== file) {
          await handle?.close()
          handle = undefined
          handle = await open(path, 'r')
          handleFile = file
        }
        bytes = await readRange(handle!, offset, end - offset)
      } catch (error) {
        throw storeFailed('read', path, error)
      }
      for (let at = first; at <= last; at++)
        yield { part: parts[at]!, span: bytes, at: parts[at]!.offset - offset }
      first = last + 1
    }
  } finally {
    await handle?.close()
  }
}

/**
 * Reads the archive with the store's own index (`ArchiveIndex`) and part checks (`partLines`): a torn
 * index tail or data no index line names (an archive interrupted before its commit), a part that does
 * not hold what its index line says, and a line of a part that does not parse. Read-only: a fresh
 * index, never the store's cached one.
 */
export async function auditArchive(
  directory: string,
  auditor: ThreadAuditor,
  sink: Sink,
  progress: (bytes: number) => void,
): Promise<void> {
  const index = new ArchiveIndex(directory)
  try {
    await index.refresh()
  } catch (error) {
    if (!StrataError.isInstance(error, 'STRATA_CORRUPT_LOG')) throw error
    const { line, problem } = error.details as { line: number; problem: string }
    auditor.report('corrupt-line', `${INDEX_FILE} line ${line} ${problem}.`, { file: INDEX_FILE, line })
    return
  }
  const interrupted = 'an archive interrupted before its commit; the items are still in the active log'
  if (index.pending !== undefined) {
    auditor.report(
      'torn-tail',
      `${INDEX_FILE} ends with ${index.pending.length} bytes of ${interrupted} (${index.pending.reason}).`,
      { file: INDEX_FILE },
    )
  }
  if (index.legacyPending !== undefined) {
    auditor.report(
      'torn-tail',
      `${LEGACY_ARCHIVE_FILE} ends with ${index.legacyPending.length} bytes without a final newline (${index.legacyPending.reason}).`,
      { file: LEGACY_ARCHIVE_FILE },
    )
  }
  if (index.hasLeftovers()) {
    auditor.report(
      'torn-tail',
      `the archive's data files hold bytes no line of ${INDEX_FILE} names (${interrupted}).`,
      {
        file: index.nextData(0).file,
      },
    )
  }
  let done = 0
  // The lines of a span's parts, decoded together (from the first part on): a text of over a megabyte
  // of ASCII is an external string, outside the heap. Started again after a part that fails its check.
  let texts: { lines: ChunkLines; span: Buffer; at: number } | undefined
  for await (const { part, span, at } of partsWithBytes(index)) {
    try {
      const lines = partLines(index, part, span.subarray(at, at + part.bytes))
      if (texts?.span !== span) texts = { lines: new ChunkLines(span.subarray(at), SPAN_BYTES), span, at }
      auditPart(part, lines, texts.lines, at - texts.at, auditor, sink)
    } catch (error) {
      if (!StrataError.isInstance(error, 'STRATA_CORRUPT_LOG')) throw error
      const { problem } = error.details as { problem: string }
      auditor.report('corrupt-line', `${part.file} ${problem}.`, { file: part.file })
      texts = undefined
    }
    done += part.bytes
    progress(done)
  }
}

/**
 * Each line of a part, checked: to `sink` when it is a log line, else a `corrupt-line`. `texts` reads
 * the part's bytes from `base` on (lines asked in order: the part's follow those of the part before).
 */
function auditPart(
  part: ArchivePart,
  { seqs, starts, ends }: ReturnType<typeof partLines>,
  texts: ChunkLines,
  base: number,
  auditor: ThreadAuditor,
  sink: Sink,
): void {
  for (let line = 0; line < starts.length; line++) {
    const text = texts.line(base + starts[line]!, base + ends[line]!)
    // A part's lines were found by their leading seq (`partLines`): a line may still not parse.
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      value = undefined
    }
    if (value === undefined || typeof parseLogRecord(value) === 'string') {
      auditor.report(
        'corrupt-line',
        `${part.file} at byte ${part.offset + starts[line]!} (seq ${seqs[line]}) is not a log line.`,
        { file: part.file },
      )
      continue
    }
    sink('archive', value as Record<string, unknown>, text, part.file, undefined)
  }
}

/** Bytes of the archive's files (index, data, a first-layout archive), for progress. */
export async function archiveSize(directory: string): Promise<number> {
  const sizeOf = (path: string) =>
    stat(path).then(
      (stats) => stats.size,
      () => 0,
    )
  const names = await readdir(join(directory, 'archive')).catch(() => [] as string[])
  const sizes = await Promise.all([
    sizeOf(join(directory, LEGACY_ARCHIVE_FILE)),
    ...names.filter((name) => name !== 'index.jsonl').map((name) => sizeOf(join(directory, 'archive', name))),
  ])
  return sizes.reduce((sum, size) => sum + size, 0)
}
