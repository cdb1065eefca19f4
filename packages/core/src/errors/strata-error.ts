const marker = Symbol.for('@strata-memory/core/error')

/** Every stable error code Strata raises. Codes never change meaning between versions. */
export type StrataErrorCode =
  | 'STRATA_INVALID_LEVEL'
  | 'STRATA_INVALID_THREAD_ID'
  | 'STRATA_INVALID_MESSAGE'
  | 'STRATA_NOT_SERIALIZABLE'
  | 'STRATA_INVALID_OPTIONS'
  | 'STRATA_INVALID_SCOPE'
  | 'STRATA_NO_OPEN_SCOPE'
  | 'STRATA_SCOPE_MISMATCH'
  | 'STRATA_UNKNOWN_MODE'
  | 'STRATA_UNKNOWN_TOOL_CALL'
  | 'STRATA_DUPLICATE_ITEM_ID'
  | 'STRATA_SEQ_CONFLICT'
  | 'STRATA_CORRUPT_LOG'
  | 'STRATA_SUMMARIZER_FAILED'
  | 'STRATA_STORE_FAILED'
  | 'STRATA_MEMORY_NOT_FOUND'
  | 'STRATA_CONTENT_READ_ONLY'
  | 'STRATA_REWIND_UNSAFE'

export interface StrataErrorOptions {
  /** The stable code; see {@link StrataErrorCode}. */
  code: StrataErrorCode
  /** What went wrong and what to do next. */
  message: string
  /** The underlying error, if any. */
  cause?: unknown
  /** Structured details for programs (the offending value, the expected seq, …). */
  details?: Record<string, unknown>
}

/**
 * The one base class of every error Strata raises on purpose.
 *
 * Use {@link StrataError.isInstance} rather than `instanceof`: it also recognises errors thrown by
 * another copy of the package (two versions in one dependency tree).
 *
 * @example
 * try { await memory.thread('../x') } catch (error) {
 *   if (StrataError.isInstance(error) && error.code === 'STRATA_INVALID_THREAD_ID') { … }
 * }
 */
export class StrataError extends Error {
  readonly [marker] = true
  readonly code: StrataErrorCode
  readonly details: Record<string, unknown>

  constructor({ code, message, cause, details = {} }: StrataErrorOptions) {
    super(message, cause === undefined ? undefined : { cause })
    this.name = 'StrataError'
    this.code = code
    this.details = details
  }

  /** True for any Strata error, optionally only for the given code. Works across package copies. */
  static isInstance(error: unknown, code?: StrataErrorCode): error is StrataError {
    if (typeof error !== 'object' || error === null || !(marker in error)) return false
    return code === undefined || (error as StrataError).code === code
  }
}
