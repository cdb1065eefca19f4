import type { Thread } from './thread'

/**
 * The code a provider or framework error carries: its own `code` (LangChain's `lc_error_code` too),
 * else its HTTP status (`status`, `statusCode`), else its name when it is more than `Error`.
 */
export function failureCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const { code, lc_error_code, status, statusCode, name } = error as Record<string, unknown>
  for (const candidate of [code, lc_error_code]) {
    if (typeof candidate === 'string' && candidate !== '') return candidate
  }
  for (const candidate of [status, statusCode]) {
    if (typeof candidate === 'number') return String(candidate)
  }
  return typeof name === 'string' && name !== '' && name !== 'Error' ? name : undefined
}

/**
 * What every adapter does when its model call fails after the request was stored: marks the request
 * failed (`thread.markFailed`, with the error's message and {@link failureCode}) before the request's
 * hold is released. The provider's error is what the caller sees: a mark that cannot be written (the
 * store failing too) is given up.
 *
 * @example
 * try { return await handler(request) } catch (error) { await markRequestFailed(thread, error); throw error }
 */
export async function markRequestFailed<L extends string>(thread: Thread<L>, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : ''
  const code = failureCode(error)
  await thread
    .markFailed({
      reason: message === '' ? 'The model call failed.' : message,
      ...(code === undefined ? {} : { code }),
    })
    .catch(() => undefined)
}
