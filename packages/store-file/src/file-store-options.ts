import { resolve } from 'node:path'
import { invalidOptions } from '@strata-memory/core'
import { checkOptionKeys, type OptionKeys } from '@strata-memory/core/store-kit'
import type { PendingReason } from './log-file'
import type { LockHolder } from './thread-lock'

/** Something the file store noticed and handled on its own; see {@link FileStoreOptions.onEvent}. */
export type FileStoreEvent =
  | {
      /**
       * A torn tail (a crash mid-append) was moved from a log file to `<file>.corrupt` and the log
       * truncated to its last complete line. The bytes were never acknowledged as an append.
       */
      type: 'torn-tail-moved'
      threadId: string
      /** The log file that was truncated. */
      file: string
      /** Where the bytes went. */
      corruptFile: string
      /** Byte offset of the tail in `file`. */
      offset: number
      /** Bytes moved. */
      length: number
      reason: PendingReason
      message: string
    }
  | {
      /**
       * An archive was interrupted after the archive file was replaced but before the active log was:
       * these seqs were in both files. They count as archived, and were removed from the active log.
       */
      type: 'archive-repaired'
      threadId: string
      seqs: number[]
      message: string
    }
  | {
      /** A stale thread lock (holder dead, or older than `staleLockMs`) was broken. */
      type: 'lock-recovered'
      threadId: string
      lockFile: string
      holder: LockHolder | undefined
      reason: 'holder-dead' | 'lock-expired'
      message: string
    }
  | {
      /** A mirror file (episodic.jsonl, semantic.jsonl, summaries/) could not be written. */
      type: 'mirror-failed'
      threadId: string
      file: string
      error: unknown
      message: string
    }

/** Options of {@link fileStore}. */
export interface FileStoreOptions {
  /**
   * The memory folder; threads live in `<dir>/agents/<threadId>/`. Resolved against the working
   * directory when the store is created.
   * @default process.env.STRATA_MEMORY_DIR, else './memory'
   */
  dir?: string
  /**
   * Sync every append, archive and state or content write to disk (and the folder after a rename)
   * before acknowledging it. Turn off only for data you can afford to lose on a power cut: a process
   * crash loses nothing either way.
   * @default true
   */
  fsync?: boolean
  /**
   * Give up waiting for a busy thread lock after this long (`STRATA_STORE_FAILED`).
   * @default 10000
   */
  lockTimeoutMs?: number
  /**
   * Every call rejects with `STRATA_STORE_FAILED` (`details.reason: 'timeout'`) when it has not
   * finished within this many milliseconds: a lock held by another process, a file system that hangs.
   * A write that had not got its lock by then is never made; one already writing may still land, and
   * repeating the very same append is safe. `Infinity`: no deadline.
   * @default 10000
   */
  timeoutMs?: number
  /**
   * A lock older than this is taken over even if its holder seems alive (a holder on another host,
   * or a reused pid). A lock whose holder is a dead process on this host is taken over at once.
   * @default 30000
   */
  staleLockMs?: number
  /**
   * Write the readable mirrors `episodic.jsonl`, `semantic.jsonl` and `summaries/recent-*.md` when
   * episodic summaries, facts and short-term summaries are appended.
   * @default true
   */
  mirrors?: boolean
  /**
   * Called when the store repairs something on its own: a torn tail moved aside, an interrupted
   * archive finished, a stale lock recovered, a mirror not written. Without it, every event but
   * `lock-recovered` becomes a process warning (`process.emitWarning`). Exceptions it throws are
   * ignored.
   */
  onEvent?: (event: FileStoreEvent) => void
}

/** The options with defaults applied and the folder resolved. */
export interface ResolvedFileStoreOptions {
  dir: string
  fsync: boolean
  lockTimeoutMs: number
  timeoutMs: number
  staleLockMs: number
  mirrors: boolean
  onEvent: (event: FileStoreEvent) => void
}

/** The keys of {@link FileStoreOptions}: a misspelt one (`fsynk`) is refused, not ignored. */
const FILE_STORE_OPTION_KEYS = {
  dir: true,
  fsync: true,
  lockTimeoutMs: true,
  timeoutMs: true,
  staleLockMs: true,
  mirrors: true,
  onEvent: true,
} as const satisfies OptionKeys<FileStoreOptions>

/** Checks the options (`STRATA_INVALID_OPTIONS`) and applies the defaults. */
export function resolveFileStoreOptions(options: FileStoreOptions): ResolvedFileStoreOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    invalidOptions('fileStore(options) takes an options object such as { dir: "./memory" }.')
  }
  checkOptionKeys('fileStore()', options, FILE_STORE_OPTION_KEYS)
  const {
    dir = process.env.STRATA_MEMORY_DIR || './memory',
    fsync = true,
    lockTimeoutMs = 10_000,
    timeoutMs = 10_000,
    staleLockMs = 30_000,
    mirrors = true,
    onEvent,
  } = options
  if (typeof dir !== 'string' || dir === '') {
    invalidOptions('fileStore: dir must be a folder path such as "./memory".', { dir })
  }
  for (const [name, value] of [
    ['fsync', fsync],
    ['mirrors', mirrors],
  ] as const) {
    if (typeof value !== 'boolean')
      invalidOptions(`fileStore: ${name} must be true or false.`, { [name]: value })
  }
  for (const [name, value] of [
    ['lockTimeoutMs', lockTimeoutMs],
    ['staleLockMs', staleLockMs],
  ] as const) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      invalidOptions(`fileStore: ${name} must be a number of milliseconds (0 or more).`, { [name]: value })
    }
  }
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) {
    invalidOptions(
      'fileStore: timeoutMs must be a number of milliseconds above 0 (Infinity for no deadline).',
      { timeoutMs },
    )
  }
  if (onEvent !== undefined && typeof onEvent !== 'function') {
    invalidOptions('fileStore: onEvent must be a function (event) => void.')
  }
  const deliver = onEvent ?? warn
  return {
    dir: resolve(dir),
    fsync,
    lockTimeoutMs,
    timeoutMs,
    staleLockMs,
    mirrors,
    onEvent: (event) => {
      try {
        deliver(event)
      } catch {}
    },
  }
}

function warn(event: FileStoreEvent): void {
  if (event.type !== 'lock-recovered') process.emitWarning(event.message, { code: 'STRATA_FILE_STORE' })
}
