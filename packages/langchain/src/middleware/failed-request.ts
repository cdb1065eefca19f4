import type { Thread } from '@strata-memory/core'

/** The code a model error carries: its own `code`, LangChain's `lc_error_code`, an HTTP status, its name. */
function codeOf(error: unknown): string | undefined {
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
 * Marks the thread's request failed after its model call failed (`thread.markFailed`), before the
 * request's hold is given back. The model's error is what the agent raises: a mark that cannot be
 * written (the store failing too) is given up, and the in-process record of the failure still applies.
 */
export async function markRequestFailed(thread: Thread, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error)
  const code = codeOf(error)
  await thread
    .markFailed({
      reason: message === '' ? 'The model call failed.' : message,
      ...(code === undefined ? {} : { code }),
    })
    .catch(() => undefined)
}
