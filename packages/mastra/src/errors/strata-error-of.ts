import { StrataError, type StrataErrorCode } from '@strata-memory/core'

const MAX_DEPTH = 8

/**
 * The Strata error behind an error a Mastra agent threw, or undefined when there is none. Mastra wraps
 * what the memory's methods throw (`getThreadById`, `saveThread`: a `MastraError` whose `cause` is
 * the `StrataError`) and passes on what a processor throws without its class (a plain error that may
 * keep the `code`): this walks the `cause` chain and gives back a `StrataError` either way, with the
 * code and message, so `StrataError.isInstance(strataErrorOf(error), 'STRATA_INVALID_THREAD_ID')` works.
 *
 * @example
 * try { await agent.generate(text, { memory: { thread, resource } }) } catch (error) {
 *   if (strataErrorOf(error)?.code === 'STRATA_BUDGET_EXCEEDED') return askToShorten()
 *   throw error
 * }
 */
export function strataErrorOf(error: unknown): StrataError | undefined {
  let current: unknown = error
  for (let depth = 0; depth < MAX_DEPTH && typeof current === 'object' && current !== null; depth++) {
    if (StrataError.isInstance(current)) return current
    const { code, message, details } = current as { code?: unknown; message?: unknown; details?: unknown }
    if (typeof code === 'string' && code.startsWith('STRATA_')) {
      return new StrataError({
        code: code as StrataErrorCode,
        message: typeof message === 'string' ? message : code,
        ...(typeof details === 'object' && details !== null
          ? { details: details as Record<string, unknown> }
          : {}),
        cause: current,
      })
    }
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}
