import type { Stats } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { basename } from 'node:path'
import { appendFileDurably, readRange } from './durable-fs'
import { storeFailed } from './file-errors'
import type { FileStoreEvent } from './file-store-options'
import type { PendingTail } from './log-file'
import { CORRUPT_SUFFIX, type ThreadFiles } from './thread-files'

/**
 * Holding the lock: moves a pending tail of a log file (the active log, the archive's index, a
 * first-layout archive) to `<file>.corrupt` as one JSON line, then cuts the file back to its last
 * committed line and reports `torn-tail-moved`. Saved first, cut second: a crash in between leaves the
 * bytes in both, never in neither.
 */
export function tornTailMover(durable: boolean, onEvent: (event: FileStoreEvent) => void) {
  return async (
    thread: ThreadFiles,
    path: string,
    pending: PendingTail,
    truncated: (stats: Stats) => void,
  ): Promise<void> => {
    const { offset, reason } = pending
    const corruptFile = `${path}${CORRUPT_SUFFIX}`
    let length = 0
    let handle: FileHandle | undefined
    try {
      handle = await open(path, 'r+')
      const size = (await handle.stat()).size
      const bytes = await readRange(handle, offset, size - offset)
      length = bytes.length
      const entry = {
        ts: new Date().toISOString(),
        file: basename(path),
        offset,
        length,
        reason,
        text: bytes.toString('utf8'),
        base64: bytes.toString('base64'),
      }
      // Saved first, cut second: a crash in between leaves the bytes in both, never in neither.
      await appendFileDurably(corruptFile, `${JSON.stringify(entry)}\n`, durable)
      await handle.truncate(offset)
      if (durable) await handle.sync()
      truncated(await handle.stat())
    } catch (error) {
      throw storeFailed('move the torn tail of', path, error)
    } finally {
      await handle?.close()
    }
    onEvent({
      type: 'torn-tail-moved',
      threadId: thread.threadId,
      file: path,
      corruptFile,
      offset,
      length,
      reason,
      message: `Moved ${length} bytes of an interrupted write (${reason}) from the end of ${path} to ${corruptFile}; they were never acknowledged. The log is intact up to its last complete line.`,
    })
  }
}
