import { errorText, UNKNOWN_ERROR_TEXT } from './error-texts'

/** A route's error as a page shows it: the code for the app, a message for people. */
export interface StrataErrorInfo {
  /** `STRATA_THREAD_BUSY`, …; `HTTP_<status>` for a body that is not a route's error; `NETWORK_ERROR`; `UNKNOWN_ERROR`. */
  code: string
  /** What happened and what to do, written for the people using the chat. */
  message: string
  /** The HTTP status, when the error came from a response. */
  status?: number
  /** What the route added: the error's details, and the developer's message (`developerMessage`) when it sent one. */
  details: Record<string, unknown>
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; details?: unknown }
}

function fromBody(body: unknown, status?: number): StrataErrorInfo | undefined {
  const error = (body as ErrorBody | null)?.error
  if (typeof error !== 'object' || error === null || typeof error.code !== 'string') return undefined
  const details: Record<string, unknown> =
    typeof error.details === 'object' && error.details !== null ? { ...(error.details as object) } : {}
  if (typeof error.message === 'string' && details.developerMessage === undefined)
    details.developerMessage = error.message
  return {
    code: error.code,
    message: errorText(error.code, details.reason),
    details,
    ...(status === undefined ? {} : { status }),
  }
}

/** `CODE: text`, as `strataOnError` writes a stream's error. */
const STREAM_ERROR = /^([A-Z][A-Z0-9_]+): ?([\s\S]*)$/

function fromText(text: string, status?: number): StrataErrorInfo {
  try {
    const parsed = fromBody(JSON.parse(text), status)
    if (parsed !== undefined) return parsed
  } catch {
    // Not JSON: a stream's error text, or a plain message.
  }
  const match = STREAM_ERROR.exec(text.trim())
  if (match !== null) {
    return {
      code: match[1]!,
      message: errorText(match[1]!),
      details: match[2] ? { developerMessage: match[2] } : {},
      ...(status === undefined ? {} : { status }),
    }
  }
  const code = status === undefined ? 'UNKNOWN_ERROR' : `HTTP_${status}`
  return {
    code,
    message: UNKNOWN_ERROR_TEXT,
    details: text ? { developerMessage: text } : {},
    ...(status === undefined ? {} : { status }),
  }
}

/**
 * Turns what a chat route answered into `{ code, message, details }` for the page: a `Response`
 * (a route's `{ error: { code, message } }` body, as `strataErrorResponse` writes it), or the `error`
 * `useChat` holds (its message is the failed response's body, or a stream's `CODE: text` from
 * `strataOnError`). `message` is written for people; keep `code` to decide what the page does (a
 * `STRATA_THREAD_BUSY` can offer "send again"). Runs in the browser: no Node imports.
 *
 * @example
 * const { error } = useChat({ transport })
 * const shown = error === undefined ? undefined : strataErrorFromResponse(error)
 * // { code: 'STRATA_THREAD_BUSY', message: 'This chat is busy with another reply …', details }
 */
export function strataErrorFromResponse(response: Response): Promise<StrataErrorInfo>
export function strataErrorFromResponse(error: unknown): StrataErrorInfo
export function strataErrorFromResponse(input: unknown): StrataErrorInfo | Promise<StrataErrorInfo> {
  if (typeof Response !== 'undefined' && input instanceof Response) {
    const status = input.status
    return input.text().then(
      (text) => fromText(text, status),
      () => fromText('', status),
    )
  }
  if (input instanceof Error) {
    // A fetch that never reached the server.
    if (input.name === 'TypeError' && /fetch|network/i.test(input.message)) {
      return {
        code: 'NETWORK_ERROR',
        message: errorText('NETWORK_ERROR'),
        details: { developerMessage: input.message },
      }
    }
    return fromText(input.message)
  }
  if (typeof input === 'string') return fromText(input)
  return fromText('')
}
