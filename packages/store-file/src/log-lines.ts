import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import type { Item } from '@strata-memory/core'
import { isMissing, storeFailed } from './file-errors'

const NEWLINE = 0x0a

/** How often an operation starts again when the log changed under it before it gives up. */
const ATTEMPTS = 3

/**
 * The committed lines of one version of a log file (one inode, appended to): their seqs, and where
 * each ends, not their text. A thread's items live on in whoever read them, so holding their lines
 * as well doubled an open thread's memory; the few operations that need the text (an archive, a
 * rewrite, a re-sent append, a second read of the same items) read it back from the file.
 *
 * The file is read again by its path: it is the same version when it has the same device and inode,
 * is at least {@link committedBytes} long, and its last committed bytes are the ones seen. Another
 * process that replaced or rewrote it meanwhile makes the read throw {@link StaleLines}; the cache
 * starts over and the operation runs again on a fresh load ({@link retryStale}).
 */
export class LogLines {
  /** The seq of each committed line; strictly increasing. */
  readonly seqs: number[] = []
  /** The byte offset of each committed line's newline. */
  readonly ends: number[] = []
  /**
   * The item of each line the last whole load read, until a read takes it: a cold read then parses
   * each line once. Emptied when lines are appended, so a process that only appends keeps none.
   */
  items: (Item | undefined)[] = []
  /** Bytes of the file that are committed lines. */
  committedBytes = 0
  /** Up to 64 bytes just before {@link committedBytes}: what tells this file from a replaced one. */
  tailCheck: Buffer = Buffer.alloc(0)

  constructor(
    readonly path: string,
    /** Which file (device and inode); undefined for a missing file, which has no lines to read. */
    readonly identity: { dev: number; ino: number } | undefined,
    /** Called when the file turned out not to be this version any more. */
    private readonly onStale: (lines: LogLines) => void,
  ) {}

  /** Records committed lines (their seqs, and their newlines at `ends` from byte `base`). */
  push(seqs: readonly number[], ends: readonly number[], base: number): void {
    for (let index = 0; index < seqs.length; index += 1) {
      this.seqs.push(seqs[index]!)
      this.ends.push(base + ends[index]!)
    }
  }

  /** The item of line `index` from the last whole load, once; undefined after that. */
  takeItem(index: number): Item | undefined {
    const item = this.items[index]
    if (item !== undefined) this.items[index] = undefined
    return item
  }

  /**
   * The items of every line, when the last whole load left all of them (none taken yet): the list
   * itself, which no longer holds them after. Undefined otherwise, and nothing is taken.
   */
  takeAllItems(): Item[] | undefined {
    const items = this.items
    if (items.length === 0 || items.length !== this.seqs.length) return undefined
    for (let index = 0; index < items.length; index++) if (items[index] === undefined) return undefined
    this.items = []
    return items as Item[]
  }

  /** Whether {@link takeItem} has the item of line `index`. */
  hasItem(index: number): boolean {
    return this.items[index] !== undefined
  }

  /** The text of the lines at `indexes` (ascending), read from the file in one read. */
  read(indexes: readonly number[]): string[] {
    if (indexes.length === 0) return []
    const from = this.#startOf(indexes[0]!)
    const bytes = this.#readLines(indexes[0]!, indexes.at(-1)!)
    const lines: string[] = []
    // One decoding a line (not ChunkLines' segments): these texts are parsed and dropped at once, and
    // a line of ASCII and Latin-1 characters is a one-byte string all the same. A re-read of 100k
    // items took 0.85x the CPU.
    for (const index of indexes) {
      lines.push(bytes.toString('utf8', this.#startOf(index) - from, this.ends[index]! - from))
    }
    return lines
  }

  /**
   * Lines `first` to `last` read a window at a time into `buffer` (a line longer than it into a
   * buffer of its own), each window's lines as a {@link LineBlock} valid until the next is asked for:
   * a pass over a long log (an archive, a rewrite) neither holds nor allocates it whole. Reading 800
   * MiB into one new buffer took 20 times as long as reading it through one 8 MiB buffer, most of it
   * the kernel faulting the new pages in. One open and one check that the file is still this version.
   */
  *blocks(first: number, last: number, buffer: Buffer): Generator<LineBlock> {
    if (last < first) return
    const fd = this.#openChecked()
    try {
      for (let start = first; start <= last; ) {
        const from = this.#startOf(start)
        let end = start
        while (end < last && this.ends[end + 1]! + 1 - from <= buffer.length) end += 1
        const length = this.ends[end]! + 1 - from
        const bytes = this.#checkedLines(
          fd,
          length <= buffer.length ? buffer : Buffer.allocUnsafe(length),
          start,
          end,
        )
        yield new LineBlock(bytes, from, this, start, end)
        start = end + 1
      }
    } finally {
      closeSync(fd)
    }
  }

  /** Where line `index` starts in the file. */
  #startOf(index: number): number {
    return index === 0 ? 0 : this.ends[index - 1]! + 1
  }

  /** The bytes of lines `first` to `last`, each checked to end where it did. */
  #readLines(first: number, last: number): Buffer {
    const length = this.ends[last]! + 1 - this.#startOf(first)
    const fd = this.#openChecked()
    try {
      return this.#checkedLines(fd, Buffer.allocUnsafe(length), first, last)
    } finally {
      closeSync(fd)
    }
  }

  /** Lines `first` to `last` read from `fd` into the start of `into`, each checked to end where it did. */
  #checkedLines(fd: number, into: Buffer, first: number, last: number): Buffer {
    const from = this.#startOf(first)
    const length = this.ends[last]! + 1 - from
    try {
      if (!readExactly(fd, into, from, length)) this.#stale()
    } catch (error) {
      this.#failed(error)
    }
    const bytes = into.subarray(0, length)
    for (let index = first; index <= last; index += 1) {
      if (bytes[this.ends[index]! - from] !== NEWLINE) this.#stale()
    }
    return bytes
  }

  /** The file opened for reading, when it is still this version (else {@link StaleLines}). */
  #openChecked(): number {
    const check = this.tailCheck
    const checkStart = this.committedBytes - check.length
    let fd: number | undefined
    try {
      fd = openSync(this.path, 'r')
      const stats = fstatSync(fd)
      const identity = this.identity
      if (identity === undefined || stats.dev !== identity.dev || stats.ino !== identity.ino) this.#stale()
      if (stats.size < this.committedBytes) this.#stale()
      const seen = Buffer.allocUnsafe(check.length)
      if (!readExactly(fd, seen, checkStart, check.length) || !seen.equals(check)) this.#stale()
      return fd
    } catch (error) {
      if (fd !== undefined) closeSync(fd)
      this.#failed(error)
    }
  }

  #failed(error: unknown): never {
    if (error instanceof StaleLines) throw error
    if (isMissing(error)) this.#stale()
    throw storeFailed('read', this.path, error)
  }

  #stale(): never {
    this.onStale(this)
    throw new StaleLines(this.path)
  }
}

/** Lines read from the file at once (see {@link LogLines.blocks}): a view of a window of the file. */
export class LineBlock {
  constructor(
    private readonly bytes: Buffer,
    /** Where the block starts in the file. */
    private readonly from: number,
    private readonly lines: LogLines,
    /** The first and last line it holds. */
    readonly first: number,
    readonly last: number,
  ) {}

  /** The bytes of line `index` with its newline: a view of the block, not a copy. */
  bytesOf(index: number): Buffer {
    const ends = this.lines.ends
    const start = index === 0 ? 0 : ends[index - 1]! + 1
    return this.bytes.subarray(start - this.from, ends[index]! + 1 - this.from)
  }
}

/** Reads `length` bytes from `position` of the open file `fd` into `into`; false when the file ends before. */
function readExactly(fd: number, into: Buffer, position: number, length: number): boolean {
  for (let filled = 0; filled < length; ) {
    const read = readSync(fd, into, filled, length - filled, position + filled)
    if (read === 0) return false
    filled += read
  }
  return true
}

/** A log file is no longer the version whose lines were asked for: it was replaced or rewritten. */
export class StaleLines extends Error {
  constructor(readonly path: string) {
    super(`The log file '${path}' changed while it was read.`)
  }
}

/**
 * Runs `action` again (it refreshes the log first) when the log changed under it between its refresh
 * and a read of its lines (see {@link LogLines}); a log that keeps changing fails as `STRATA_STORE_FAILED`.
 */
export async function retryStale<T>(action: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await action()
    } catch (error) {
      if (!(error instanceof StaleLines)) throw error
      if (attempt >= ATTEMPTS) throw storeFailed('read', error.path, error)
    }
  }
}
