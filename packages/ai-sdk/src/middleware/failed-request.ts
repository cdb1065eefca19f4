import type { Thread } from '@strata-memory/core'

/** The code a provider error carries: its own `code`, else its HTTP status, else its name. */
function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const { code, statusCode, name } = error as { code?: unknown; statusCode?: unknown; name?: unknown }
  if (typeof code === 'string' && code !== '') return code
  if (typeof statusCode === 'number') return String(statusCode)
  if (typeof name === 'string' && name !== '' && name !== 'Error') return name
  return undefined
}

/**
 * Marks the thread's request failed after its model call failed (`thread.markFailed`), before the
 * call's hold is released. The provider's error is what the caller sees: a mark that cannot be written
 * (the store is down too) is given up, and the in-process record of the failure still applies.
 */
export async function markRequestFailed(thread: Thread<string>, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error)
  const code = codeOf(error)
  await thread
    .markFailed({
      reason: message === '' ? 'The model call failed.' : message,
      ...(code === undefined ? {} : { code }),
    })
    .catch(() => undefined)
}
