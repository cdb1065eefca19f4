import { join } from 'node:path'
import type { Item } from '@strata-memory/core'
import { seqLowerBound, seqUpperBound } from '@strata-memory/core/store-kit'
import { ArchiveIndex } from './archive-index'
import type { FileVersion } from './file-version'
import type { HeldLease } from './held-lease'
import { itemFromLogLine } from './line-format'
import { LogFile } from './log-file'

/** File names inside `<dir>/agents/<threadId>/`. */
export const ACTIVE_FILE = 'raw_traces.jsonl'
export { ARCHIVE_FOLDER, INDEX_FILE, LEGACY_ARCHIVE_FILE } from './archive-parts'
export const STATE_FILE = 'state.json'
export const CONTENT_FOLDER = 'content'
export const CORRUPT_SUFFIX = '.corrupt'

/** A window of a thread's active lines (see `ThreadView.activeBlocks`). */
export interface ActiveBlock {
  start: number
  end: number
  bytesOf(index: number): Buffer
}

/** What a thread holds, as of the last refresh of its two log files. */
export interface ThreadView {
  /** Seqs of the active log, without items that are also in the archive. */
  activeSeqs: readonly number[]
  /**
   * The text of the active lines from `start` to `end` (indexes into `activeSeqs`), read from the
   * file now: call it before any await after the view was taken. Throws `StaleLines` when the file
   * is no longer the one the view shows (see LogLines; `retryStale` runs the operation again).
   */
  activeLines(start?: number, end?: number): string[]
  /** The items of the active lines from `start` to `end`: those a cold load parsed, else read as `activeLines`. */
  activeItems(start: number, end: number): Item[]
  /**
   * The active lines read a window at a time into `buffer` (see `LogLines.blocks`): each window the
   * indexes into `activeSeqs` it holds, `start` to `end` (exclusive), and each one's bytes with its
   * newline, valid until the next window is asked for. Throws `StaleLines` as `activeLines` does.
   */
  activeBlocks(buffer: Buffer): Generator<ActiveBlock>
  /** How many bytes active line `index` takes in the file, with its newline (nothing is read). */
  lineBytes(index: number): number
  /** How many items the archive holds (from its index: no archived line is read). */
  archivedCount: number
  /** The highest seq ever assigned: the newest line of either file (the archive keeps every line it got). */
  lastSeq: number
  /** Seqs found in both: an archive interrupted after its commit, before the active log was rewritten. They count as archived. */
  overlap: readonly number[]
}

/** The cached state of one thread folder: its active log and its archive's index. */
export class ThreadFiles {
  readonly active: LogFile
  readonly archive: ArchiveIndex
  /** The lease this store wrote on the thread and holds, if any (see HeldLease). */
  held: HeldLease | undefined
  /** `state.json` as this store last read or wrote it: read again only when its stat differs. */
  stateSeen: { version: FileVersion; text: string } | undefined
  /** Counts this store's holds of the thread's lock: the current one's number while it is held. */
  lockHolds = 0
  private cached: { activeRevision: number; archiveRevision: number; view: ThreadView } | undefined

  constructor(
    readonly threadId: string,
    readonly directory: string,
  ) {
    this.active = new LogFile(join(directory, ACTIVE_FILE))
    this.archive = new ArchiveIndex(directory)
  }

  /** Changes whenever the cache of either log file forgot everything and must be read whole again. */
  get resets(): number {
    return this.active.resets + this.archive.resets
  }

  get statePath(): string {
    return join(this.directory, STATE_FILE)
  }

  get contentDirectory(): string {
    return join(this.directory, CONTENT_FOLDER)
  }

  /**
   * The thread as the active log and the archive's index show it. Recovery rule: a seq in both is
   * archived (the archive is always committed first), so it is left out of the active log here and
   * removed from the active file at the next write.
   */
  view(): ThreadView {
    const { active, archive } = this
    const cached = this.cached
    if (cached?.activeRevision === active.revision && cached.archiveRevision === archive.revision) {
      return cached.view
    }
    let activeSeqs = active.seqs
    const lines = active.lines
    const overlap: number[] = []
    const archiveLast = archive.lastSeq
    // Usually the oldest items are archived, so no active seq is at or below the archive's newest.
    if (archive.count > 0 && activeSeqs.length > 0 && activeSeqs[0]! <= archiveLast) {
      const end = seqUpperBound(activeSeqs, archiveLast)
      const { runs } = archive
      for (let index = 0; index < end; index += 1) {
        const seq = activeSeqs[index]!
        if (runs.has(seq)) overlap.push(seq)
      }
      if (overlap.length > 0) {
        const archived = new Set(overlap)
        activeSeqs = activeSeqs.filter((seq) => !archived.has(seq))
      }
    }
    const seqs = activeSeqs
    // The line of the file that holds activeSeqs[index] (after an interrupted archive, not the same index).
    const lineIndex =
      overlap.length === 0
        ? (index: number) => index
        : (index: number) => seqLowerBound(lines.seqs, seqs[index]!)
    const view: ThreadView = {
      activeSeqs,
      activeLines(start = 0, end = seqs.length) {
        const indexes: number[] = []
        for (let index = start; index < end; index += 1) indexes.push(lineIndex(index))
        return lines.read(indexes)
      },
      *activeBlocks(buffer) {
        if (seqs.length === 0) return
        let index = 0
        for (const block of lines.blocks(lineIndex(0), lineIndex(seqs.length - 1), buffer)) {
          const start = index
          while (index < seqs.length && lineIndex(index) <= block.last) index += 1
          yield { start, end: index, bytesOf: (at: number) => block.bytesOf(lineIndex(at)) }
        }
      },
      lineBytes(index) {
        const line = lineIndex(index)
        return lines.ends[line]! - (line === 0 ? -1 : lines.ends[line - 1]!)
      },
      activeItems(start, end) {
        // A cold read of the whole log: the items the load built, handed over in one list.
        if (start === 0 && end === lines.seqs.length && overlap.length === 0) {
          const all = lines.takeAllItems()
          if (all !== undefined) return all
        }
        const missing: number[] = []
        for (let index = start; index < end; index += 1) {
          if (!lines.hasItem(lineIndex(index))) missing.push(lineIndex(index))
        }
        const texts = lines.read(missing)
        const items: Item[] = []
        let next = 0
        for (let index = start; index < end; index += 1) {
          items.push(lines.takeItem(lineIndex(index)) ?? itemFromLogLine(texts[next++]!))
        }
        return items
      },
      archivedCount: archive.count,
      lastSeq: Math.max(active.lastSeq, archiveLast),
      overlap,
    }
    this.cached = { activeRevision: active.revision, archiveRevision: archive.revision, view }
    return view
  }
}
