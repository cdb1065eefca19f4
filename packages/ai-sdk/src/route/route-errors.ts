import { StrataError, type StrataErrorCode } from '@strata-memory/core'
import { errorText } from '../client/error-texts'

/** Errors that say something about the request (its thread id, its messages, its options): HTTP 400. */
const REQUEST_ERRORS: ReadonlySet<StrataErrorCode> = new Set<StrataErrorCode>([
  'STRATA_INVALID_THREAD_ID',
  'STRATA_INVALID_MESSAGE',
  'STRATA_INVALID_OPTIONS',
  'STRATA_INVALID_LEVEL',
  'STRATA_INVALID_SCOPE',
  'STRATA_NO_OPEN_SCOPE',
  'STRATA_NOT_SERIALIZABLE',
  'STRATA_UNKNOWN_MODE',
  'STRATA_UNKNOWN_TOOL_CALL',
  'STRATA_REWIND_UNSAFE',
  'STRATA_SCOPE_MISMATCH',
])

/** The `details.reason` of a Strata error, when it has one. */
const reasonOf = (error: StrataError) => (error.details as { reason?: unknown } | undefined)?.reason

/** The text the AI SDK shows for an error it is not told about; kept for errors that are not Strata's. */
const HIDDEN = 'An error occurred.'

/**
 * The `onError` of a UI message stream (`createUIMessageStream({ onError })`,
 * `toUIMessageStream({ stream, onError })`): a Strata error reaches the page as `CODE: text`, the text
 * written for the people using the chat (what happened, what to do; `strataErrorFromResponse` reads
 * it); the developer's message is neither sent nor logged here: log the error first where the
 * server should keep it. Any other error stays hidden behind the AI SDK's default text, as it would
 * without this helper.
 *
 * @example
 * const stream = createUIMessageStream<StrataUIMessage>({
 *   execute,
 *   onError: (error) => {
 *     console.error(error)
 *     return strataOnError(error)
 *   },
 * })
 */
export function strataOnError(error: unknown): string {
  if (StrataError.isInstance(error)) return `${error.code}: ${errorText(error.code, reasonOf(error))}`
  return HIDDEN
}

/** Errors that say the thread is busy with another request or another writer: HTTP 409, send it again later. */
const CONFLICT_ERRORS: ReadonlySet<StrataErrorCode> = new Set<StrataErrorCode>([
  'STRATA_SEQ_CONFLICT',
  'STRATA_THREAD_BUSY',
])

/**
 * The HTTP status of an error a route caught before streaming: 400 for a Strata error the request
 * caused (a bad thread id, malformed messages or options), 409 for a thread another request holds
 * (`STRATA_THREAD_BUSY`, from `thread.hold()`) or another writer changed (`STRATA_SEQ_CONFLICT`): send
 * it again once that request has ended; 413 for a request that cannot fit the input budget
 * (`STRATA_BUDGET_EXCEEDED`); 503 for a store that did not answer (`STRATA_STORE_FAILED`: try again
 * later); 500 for anything else (`STRATA_THREAD_LOST` included: the chat cannot go on).
 */
export function strataErrorStatus(error: unknown): number {
  if (!StrataError.isInstance(error)) return 500
  if (CONFLICT_ERRORS.has(error.code)) return 409
  if (error.code === 'STRATA_BUDGET_EXCEEDED') return 413
  // The store did not answer (down, timed out): the server is there, its memory is not, for now.
  if (error.code === 'STRATA_STORE_FAILED') return 503
  return REQUEST_ERRORS.has(error.code) ? 400 : 500
}

/**
 * A JSON `Response` for an error a route caught before it started streaming (`openChatRequest`,
 * `strataTools` and `openAppThread` throw synchronously or reject on an empty thread id, `thread.hold()`
 * rejects on a thread another request holds): `{ error: { code, message, details } }` with
 * {@link strataErrorStatus}'s status; `message` is written for people (`strataErrorFromResponse`
 * shows it), `details.developerMessage` says what the developer does about it. Errors that are not
 * Strata's keep their message private.
 *
 * @example
 * try {
 *   tools = strataTools(memory, { threadId: id, scopes: true })
 *   hold = await (await openAppThread(memory, id)).hold() // core's: any chat id
 * } catch (error) {
 *   return strataErrorResponse(error) // 400 STRATA_INVALID_THREAD_ID, 409 STRATA_THREAD_BUSY
 * }
 */
export function strataErrorResponse(error: unknown): Response {
  const status = strataErrorStatus(error)
  const body = StrataError.isInstance(error)
    ? {
        error: {
          code: error.code,
          message: errorText(error.code, reasonOf(error)),
          details: { ...error.details, developerMessage: error.message },
        },
      }
    : { error: { code: 'INTERNAL_ERROR', message: errorText('INTERNAL_ERROR'), details: {} } }
  return Response.json(body, { status })
}
