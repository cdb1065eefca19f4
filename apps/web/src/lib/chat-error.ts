/** A failed chat request as the page shows it: a stable code for the app, a message for people. */
export interface ChatError {
  /** Strata's code (`STRATA_THREAD_BUSY`, …), the route's own (`BAD_REQUEST`, `STALE_CHAT`), `NETWORK` or `INTERNAL_ERROR`. */
  code: string
  message: string
}

/** A stream error as `strataOnError` writes it: `CODE: message`. */
const CODED = /^([A-Z][A-Z0-9_]{2,}): ([\s\S]*)$/

/** What the AI SDK writes for an error it keeps private. */
const HIDDEN = 'An error occurred.'

/**
 * The code and message of a failed chat request, from what `useChat` reports: a refused request's
 * JSON body `{ error: { code, message } }` (the transport makes the body the error's message), a
 * stream error `CODE: message`, a network failure, or anything else as it is. Never raw JSON.
 */
export function chatErrorOf(error: unknown): ChatError {
  const text = error instanceof Error ? error.message : String(error)
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }
    const { code, message } = body?.error ?? {}
    if (typeof message === 'string') return { code: typeof code === 'string' ? code : 'HTTP_ERROR', message }
    return { code: 'HTTP_ERROR', message: 'The server refused the request without saying why.' }
  } catch {
    // Not a JSON body.
  }
  const coded = CODED.exec(text)
  if (coded) return { code: coded[1]!, message: coded[2]! }
  if (error instanceof TypeError || /failed to fetch|network/i.test(text)) {
    return {
      code: 'NETWORK',
      message: 'The server could not be reached: check the connection, then send again.',
    }
  }
  if (text === HIDDEN) return { code: 'INTERNAL_ERROR', message: 'The server could not finish the answer.' }
  return { code: 'ERROR', message: text }
}

/** Whether the chat was busy with another request (a second tab, another device): not a failure. */
export const isBusy = (error: ChatError) => error.code === 'STRATA_THREAD_BUSY'

/** The line the chat shows for a failed request. */
export function chatErrorText(error: ChatError): string {
  if (isBusy(error)) {
    return 'This chat is busy: another tab or device is getting an answer in it. Your message was not sent; the chat updates when that answer is done, then send it again.'
  }
  return error.message
}
