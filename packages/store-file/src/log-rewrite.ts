import type { Stats } from 'node:fs'
import { type FileHandle, open, rename, rm } from 'node:fs/promises'
import { dirname } from 'node:path'
import { cleanLength, cleanLine, copyClean } from './clean-lines'
import { syncDirectory, temporaryPathFor, writeFully } from './durable-fs'

/** Bytes gathered before a write. */
const CHUNK_BYTES = 8 * 1024 * 1024

/** How many bytes before a log's committed end are compared to tell an appended file from a replaced one (see `LogLines.tailCheck`). */
export const TAIL_CHECK_BYTES = 64

/** What a committed rewrite wrote: where each line's newline is, the size, and the last bytes. */
export interface RewrittenLog {
  ends: readonly number[]
  bytes: number
  tail: Buffer
  stats: Stats
}

/**
 * A log's replacement, written as its lines come, each without its `batch_end` (see `cleanLine`): a
 * temporary file beside the log, filled through one reused 8 MiB buffer, renamed over the log by
 * {@link commit} (synced first, with its folder after, when durable). A long compaction moves every
 * line of a long log: a buffer of its own for each rewrite's lines, or for the whole log, cost more
 * than the copies themselves (new pages, and garbage collections the external memory set off).
 */
export class LogRewrite {
  /** The offset of each line's newline in the new file. */
  readonly #ends: number[] = []
  #buffer: Buffer
  #used = 0
  /** Bytes written to the file so far (not counting the buffer's). */
  #written = 0
  /** The last bytes written to the file, up to {@link TAIL_CHECK_BYTES}. */
  #tail = Buffer.alloc(0)

  private constructor(
    readonly path: string,
    private readonly temporary: string,
    private readonly handle: FileHandle,
    private readonly durable: boolean,
    /** Bytes gathered before a write (smaller in tests, to cross many writes). */
    private readonly chunkBytes: number,
  ) {
    this.#buffer = Buffer.allocUnsafe(chunkBytes)
  }

  static async create(path: string, durable: boolean, chunkBytes = CHUNK_BYTES): Promise<LogRewrite> {
    const temporary = temporaryPathFor(path)
    return new LogRewrite(path, temporary, await open(temporary, 'w'), durable, chunkBytes)
  }

  /**
   * Adds the line `bytes` (with its newline). A promise when the buffer was written first: await it
   * before the next line, and keep `bytes` as they are until then.
   */
  add(bytes: Buffer): Promise<void> | undefined {
    const clean = cleanLine(bytes)
    const size = cleanLength(bytes, clean)
    if (this.#used + size <= this.#buffer.length) {
      this.#put(bytes, clean)
      return undefined
    }
    return this.#flush().then(() => {
      // One line longer than the buffer: a buffer of its own, for this line alone.
      if (size > this.#buffer.length) this.#buffer = Buffer.allocUnsafe(size)
      this.#put(bytes, clean)
    })
  }

  /** Writes what is left, syncs, and puts the new file in the log's place. */
  async commit(): Promise<RewrittenLog> {
    let stats: Stats
    try {
      await this.#flush()
      if (this.durable) await this.handle.sync()
      stats = await this.handle.stat()
    } finally {
      await this.handle.close()
    }
    await rename(this.temporary, this.path)
    if (this.durable) await syncDirectory(dirname(this.path))
    return { ends: this.#ends, bytes: this.#written, tail: this.#tail, stats }
  }

  /** Gives up: the temporary file goes, the log stays as it was. */
  async abort(): Promise<void> {
    await this.handle.close().catch(() => {})
    await rm(this.temporary, { force: true }).catch(() => {})
  }

  #put(bytes: Buffer, clean: ReturnType<typeof cleanLine>): void {
    this.#used += copyClean(bytes, clean, this.#buffer, this.#used)
    this.#ends.push(this.#written + this.#used - 1)
  }

  async #flush(): Promise<void> {
    if (this.#used === 0) return
    const chunk = this.#buffer.subarray(0, this.#used)
    await writeFully(this.handle, chunk)
    this.#written += chunk.length
    this.#tail =
      chunk.length >= TAIL_CHECK_BYTES
        ? Buffer.from(chunk.subarray(chunk.length - TAIL_CHECK_BYTES))
        : Buffer.concat([this.#tail, chunk]).subarray(-TAIL_CHECK_BYTES)
    this.#used = 0
    if (this.#buffer.length > this.chunkBytes) this.#buffer = Buffer.allocUnsafe(this.chunkBytes)
  }
}
