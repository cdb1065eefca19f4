import { randomBytes } from 'node:crypto'
import { closeSync, fstatSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs'
import { type FileHandle, open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { errorCode } from './file-errors'
import { type FileVersion, versionOf } from './file-version'

/** Writes all of `data` at the descriptor's position, synchronously (see writeFully). */
export function writeFullySync(descriptor: number, data: Buffer): void {
  for (let written = 0; written < data.length; ) {
    written += writeSync(descriptor, data, written, data.length - written)
  }
}

/** Writes all of `data` at the handle's position (appends for a handle opened with `a`). */
export async function writeFully(handle: FileHandle, data: Buffer): Promise<void> {
  let written = 0
  while (written < data.length) {
    const { bytesWritten } = await handle.write(data, written, data.length - written)
    written += bytesWritten
  }
}

/** Reads `length` bytes from `position`, or fewer when the file is shorter. */
export async function readRange(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length)
  let filled = 0
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled)
    if (bytesRead === 0) break
    filled += bytesRead
  }
  return filled === length ? buffer : buffer.subarray(0, filled)
}

/**
 * Makes a directory's entries (a created or renamed file) durable. Platforms that cannot open a
 * directory for syncing (Windows) skip it: their file systems journal renames themselves.
 */
export async function syncDirectory(path: string): Promise<void> {
  let handle: FileHandle | undefined
  try {
    handle = await open(path, 'r')
    await handle.sync()
  } catch (error) {
    if (!['EISDIR', 'EPERM', 'EINVAL', 'EBADF', 'EACCES'].includes(errorCode(error) ?? '')) throw error
  } finally {
    await handle?.close()
  }
}

/** A unique, hidden temporary name beside `path`, so that readers listing the folder skip it. */
export function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
}

/**
 * Replaces `path` with `data` atomically: the data goes to a temporary file beside it, is synced, and
 * is renamed over `path`; then the directory is synced so the rename survives a power loss. A reader
 * sees the old file or the new one, never a mix.
 */
export async function writeFileAtomic(
  path: string,
  data: Buffer | string | readonly Buffer[],
  durable: boolean,
): Promise<void> {
  const temporary = temporaryPathFor(path)
  try {
    const handle = await open(temporary, 'w')
    try {
      const chunks = typeof data === 'string' ? [Buffer.from(data)] : Buffer.isBuffer(data) ? [data] : data
      for (const chunk of chunks) await writeFully(handle, chunk)
      if (durable) await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {})
    throw error
  }
  if (durable) await syncDirectory(dirname(path))
}

/**
 * Replaces `path` with `text` atomically, as {@link writeFileAtomic} does but not synced and in one
 * synchronous step: for a small file whose loss in a power cut loses nothing (a lease) or that the
 * store writes unsynced anyway (`fsync: false`). Four metadata calls of microseconds each cost less
 * than four round trips through the thread pool. Returns the new file's version (it keeps its inode,
 * size and mtime through the rename), so no stat of `path` is needed to know it.
 */
export function replaceFileSync(path: string, text: string): FileVersion {
  const temporary = temporaryPathFor(path)
  try {
    const descriptor = openSync(temporary, 'w')
    let version: FileVersion
    try {
      writeFullySync(descriptor, Buffer.from(text))
      version = versionOf(fstatSync(descriptor))
    } finally {
      closeSync(descriptor)
    }
    renameSync(temporary, path)
    return version
  } catch (error) {
    try {
      unlinkSync(temporary)
    } catch {}
    throw error
  }
}

/**
 * Appends `data` to `path` in one write and syncs it; when the file is new, syncs its folder too so
 * that the file's name survives a power loss.
 */
export async function appendFileDurably(
  path: string,
  data: Buffer | string,
  durable: boolean,
): Promise<void> {
  let created = false
  let handle: FileHandle
  try {
    handle = await open(path, 'ax')
    created = true
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error
    handle = await open(path, 'a')
  }
  try {
    await writeFully(handle, typeof data === 'string' ? Buffer.from(data) : data)
    if (durable) await handle.sync()
  } finally {
    await handle.close()
  }
  if (created && durable) await syncDirectory(dirname(path))
}
