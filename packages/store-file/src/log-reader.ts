import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs'
import { open } from 'node:fs/promises'

/**
 * A log file at or under this size that is a regular file is read synchronously: a cold open of a
 * 1k-item thread (0.8 MiB) spent as long on the thread pool's round trips (open, stat, read, close)
 * and the promise machinery around them, run once in V8's interpreter, as on reading the bytes.
 */
export const SYNC_READ_BYTES = 2 * 1024 * 1024

/** Reads of one open log file; each call either returns at once or through the thread pool. */
export interface LogReader {
  stat(): Stats | Promise<Stats>
  /** Reads up to `length` bytes at `position` into `buffer` from `offset`: how many it read. */
  read(buffer: Buffer, offset: number, length: number, position: number): number | Promise<number>
  close(): void | Promise<void>
}

/**
 * Opens the log at `path` for reading. Synchronously when `stats` (its stat just now) shows a small
 * regular file: it is opened non-blocking, so a file replaced by a FIFO meanwhile cannot block the
 * thread, and such a file is handed to the thread pool after all, where a call that hangs is cut
 * short by the store's deadline (`timeoutMs`). Throws what `open` throws (ENOENT for a missing file).
 */
export async function openLog(path: string, stats: Stats): Promise<LogReader> {
  if (stats.isFile() && stats.size <= SYNC_READ_BYTES) {
    const descriptor = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
    let opened: Stats
    try {
      opened = fstatSync(descriptor)
    } catch (error) {
      closeSync(descriptor)
      throw error
    }
    if (opened.isFile()) {
      return {
        stat: () => opened,
        read: (buffer, offset, length, position) => readSync(descriptor, buffer, offset, length, position),
        close: () => closeSync(descriptor),
      }
    }
    closeSync(descriptor)
  }
  const handle = await open(path, 'r')
  return {
    stat: () => handle.stat(),
    read: async (buffer, offset, length, position) =>
      (await handle.read(buffer, offset, length, position)).bytesRead,
    close: () => handle.close(),
  }
}

/** Reads `length` bytes from `position`, or fewer when the file is shorter. */
export async function readLogRange(reader: LogReader, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length)
  const filled = await readLogInto(reader, buffer, 0, length, position)
  return filled === length ? buffer : buffer.subarray(0, filled)
}

/** Reads up to `length` bytes at `position` into `buffer` from `offset`; how many it read (fewer at the end). */
export async function readLogInto(
  reader: LogReader,
  buffer: Buffer,
  offset: number,
  length: number,
  position: number,
): Promise<number> {
  let filled = 0
  while (filled < length) {
    const bytesRead = await reader.read(buffer, offset + filled, length - filled, position + filled)
    if (bytesRead === 0) break
    filled += bytesRead
  }
  return filled
}
