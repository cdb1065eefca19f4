import type { Thread } from '@strata-memory/core'

/** The code a model error carries: its own `code`, else its HTTP status, else its name. */
function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const { code, statusCode, status, name } = error as Record<string, unknown>
  if (typeof code === 'string' && code !== '') return code
  for (const candidate of [statusCode, status]) {
    if (typeof candidate === 'number') return String(candidate)
  }
  return typeof name === 'string' && name !== '' && name !== 'Error' ? name : undefined
}

/**
 * Marks the thread's request failed after its model call failed (`thread.markFailed`), before the
 * run gives its hold back. Mastra reports the model's error as it does: a mark that cannot be written
 * (the store failing too) is given up.
 */
export async function markRequestFailed(thread: Thread, error: unknown): Promise<void> {
  const message =
    error instanceof Error ? error.message : error === undefined ? '' : typeof error === 'string' ? error : ''
  const code = codeOf(error)
  await thread
    .markFailed({
      reason: message === '' ? 'The model call failed.' : message,
      ...(code === undefined ? {} : { code }),
    })
    .catch(() => undefined)
}
