import { accessSync, constants, existsSync } from 'node:fs'
import { dirname } from 'node:path'
import { StrataError } from '@strata-memory/core'

/** The `code` of a Node.js system error (`ENOENT`, `EEXIST`, …), if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

export const isMissing = (error: unknown): boolean => errorCode(error) === 'ENOENT'

/** What to do about a file-system error, by its code. */
const REMEDIES: Record<string, (folder: string) => string> = {
  EROFS: (folder) =>
    `'${folder}' is on a read-only file system (EROFS). Mount it read-write, or give the store a writable folder (fileStore({ dir }) or STRATA_MEMORY_DIR), then retry.`,
  EACCES: (folder) =>
    `this process may not write in '${folder}' (EACCES). Give its user write permission there, or give the store a writable folder (fileStore({ dir }) or STRATA_MEMORY_DIR), then retry.`,
  EPERM: (folder) =>
    `this process may not write in '${folder}' (EPERM). Give its user write permission there, or give the store a writable folder (fileStore({ dir }) or STRATA_MEMORY_DIR), then retry.`,
  ENOSPC: (folder) => `the file system of '${folder}' is full (ENOSPC). Free some space, then retry.`,
}

/**
 * The real cause of a failed write: a recursive mkdir on a read-only or forbidden file system fails
 * with ENOENT (the first folder it could not make is missing), so for ENOENT the nearest existing
 * folder is asked whether it may be written (EROFS, EACCES).
 */
function writeCause(path: string, cause: unknown): { code: string; folder: string } | undefined {
  const code = errorCode(cause)
  if (code !== undefined && code !== 'ENOENT' && REMEDIES[code] !== undefined)
    return { code, folder: dirname(path) }
  if (code !== 'ENOENT') return undefined
  let folder = dirname(path)
  while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder)
  try {
    accessSync(folder, constants.W_OK)
    return undefined
  } catch (error) {
    const denied = errorCode(error)
    return denied !== undefined && REMEDIES[denied] !== undefined ? { code: denied, folder } : undefined
  }
}

/** `STRATA_STORE_FAILED` for a file operation that failed for a reason outside Strata's control. */
export function storeFailed(action: string, path: string, cause: unknown): StrataError {
  if (StrataError.isInstance(cause)) return cause
  if (
    cause instanceof RangeError ||
    ['ERR_STRING_TOO_LONG', 'ERR_BUFFER_TOO_LARGE'].includes(errorCode(cause) ?? '')
  ) {
    // A line or a file beyond what this process can hold as one string or buffer.
    return new StrataError({
      code: 'STRATA_STORE_FAILED',
      message: `The file store could not ${action} '${path}': it is too large to hold in memory at once (${cause instanceof Error ? cause.message : String(cause)}). The archive has no such limit: let compaction archive older items (a budget), or split the thread, then retry.`,
      cause,
      details: { path, action, reason: 'too-large' },
    })
  }
  const reason = cause instanceof Error ? cause.message : String(cause)
  const found = writeCause(path, cause)
  if (found !== undefined) {
    // The system's own message (for a read-only mkdir, a misleading ENOENT) stays in `cause`.
    return new StrataError({
      code: 'STRATA_STORE_FAILED',
      message: `The file store could not ${action} '${path}': ${REMEDIES[found.code]!(found.folder)}`,
      cause,
      details: {
        path,
        action,
        errorCode: found.code,
        ...(found.code === 'EROFS' ? { reason: 'read-only' } : {}),
      },
    })
  }
  return new StrataError({
    code: 'STRATA_STORE_FAILED',
    message: `The file store could not ${action} '${path}': ${reason}. Check that the directory exists, is writable and has free space, then retry.`,
    cause,
    details: { path, action, errorCode: errorCode(cause) },
  })
}

/** `STRATA_CORRUPT_LOG` naming the file and the 1-based line. */
export function corruptLog(path: string, line: number, problem: string): StrataError {
  return new StrataError({
    code: 'STRATA_CORRUPT_LOG',
    message: `${path}, line ${line}: the line ${problem}, so the log cannot be read. Nothing was changed. Repair or remove that line by hand (keep a copy), then retry.`,
    details: { file: path, line, problem },
  })
}
