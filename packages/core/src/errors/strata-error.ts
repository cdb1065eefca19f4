import type { StrataErrorDetails } from './strata-error-details'

const marker = Symbol.for('@strata-memory/core/error')

/** Every stable error code Strata raises. Codes never change meaning between versions. */
export type StrataErrorCode = keyof StrataErrorDetails

export interface StrataErrorOptions<C extends StrataErrorCode = StrataErrorCode> {
  /** The stable code; see {@link StrataErrorCode}. */
  code: C
  /** What went wrong and what to do next. */
  message: string
  /** The underlying error, if any. */
  cause?: unknown
  /** Structured details for programs (the offending value, the expected seq, …); see {@link StrataErrorDetails}. */
  details?: StrataErrorDetails[C]
}

/**
 * The one base class of every error Strata raises on purpose.
 *
 * Use {@link StrataError.isInstance} rather than `instanceof`: it also recognises errors thrown by
 * another copy of the package (two versions in one dependency tree).
 *
 * @example
 * try { await memory.thread('../x') } catch (error) {
 *   if (StrataError.isInstance(error, 'STRATA_INVALID_THREAD_ID')) console.log(error.details.threadId)
 * }
 */
export class StrataError<C extends StrataErrorCode = StrataErrorCode> extends Error {
  readonly [marker] = true
  /** The stable code; see {@link StrataErrorCode}. */
  readonly code: C
  /** What the error carries for programs, typed by its code; see {@link StrataErrorDetails}. */
  readonly details: StrataErrorDetails[C]

  constructor({ code, message, cause, details }: StrataErrorOptions<C>) {
    super(message, cause === undefined ? undefined : { cause })
    this.name = 'StrataError'
    this.code = code
    this.details = details ?? ({} as StrataErrorDetails[C])
  }

  /**
   * True for any Strata error, optionally only for the given code, whose `details` it then types.
   * Works across package copies.
   *
   * @example
   * if (StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT')) retryAt(error.details.actualSeq)
   */
  static isInstance(error: unknown): error is StrataError
  static isInstance<C extends StrataErrorCode>(error: unknown, code: C): error is StrataError<C>
  static isInstance(error: unknown, code?: StrataErrorCode): error is StrataError {
    if (typeof error !== 'object' || error === null || !(marker in error)) return false
    return code === undefined || (error as StrataError).code === code
  }
}
