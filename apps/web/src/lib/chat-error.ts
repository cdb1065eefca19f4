/**
 * The text the chat shows for a failed request. `useChat` makes the body of a refused request (a 400,
 * a 409 on a chat another request holds) the error's message: the route's JSON
 * `{ error: { code, message } }` is shown as its message, which says what to do; anything else as it is.
 */
export function chatErrorText(error: Error): string {
  try {
    const body = JSON.parse(error.message) as { error?: { code?: unknown; message?: unknown } }
    const { code, message } = body.error ?? {}
    if (typeof message === 'string') return typeof code === 'string' ? `${message} (${code})` : message
  } catch {
    // Not a JSON body: a stream error's own text.
  }
  return error.message
}
