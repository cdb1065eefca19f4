import { StrataError } from '@strata-memory/core'

/** The `code` of a Node.js system error (`ENOENT`, `EEXIST`, …), if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

export const isMissing = (error: unknown): boolean => errorCode(error) === 'ENOENT'

/** `STRATA_STORE_FAILED` for a file operation that failed for a reason outside Strata's control. */
export function storeFailed(action: string, path: string, cause: unknown): StrataError {
  if (StrataError.isInstance(cause)) return cause
  const reason = cause instanceof Error ? cause.message : String(cause)
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
