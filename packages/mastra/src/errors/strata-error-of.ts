import { StrataError, type StrataErrorCode } from '@strata-memory/core'

const MAX_DEPTH = 8

/**
 * The Strata error behind an error a Mastra agent threw, or undefined when there is none. Mastra wraps
 * what the memory's methods throw (`getThreadById`, `saveThread`: a `MastraError` whose `cause` is
 * the `StrataError`) and passes on what a processor throws without its class (a plain error that may
 * keep the `code`): this walks the `cause` chain and gives back a `StrataError` either way, with the
 * code and message, so `StrataError.isInstance(strataErrorOf(error), 'STRATA_INVALID_THREAD_ID')` works.
 * An error of the phases after a model response, which Mastra passes on as `PROCESSOR_WORKFLOW_FAILED`
 * with the message alone, is found by that message among the last errors the processor threw in this
 * process: the `StrataError` itself, its details included.
 *
 * @example
 * try { await agent.generate(text, { memory: { thread, resource } }) } catch (error) {
 *   if (strataErrorOf(error)?.code === 'STRATA_BUDGET_EXCEEDED') return askToShorten()
 *   throw error
 * }
 */
export function strataErrorOf(error: unknown): StrataError | undefined {
  let current: unknown = error
  const messages: string[] = []
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
    if (typeof message === 'string') messages.push(message)
    current = (current as { cause?: unknown }).cause
  }
  return thrownInProcessor(messages)
}

/** How many of the newest errors Strata's processor threw are kept for {@link strataErrorOf}. */
const REMEMBERED = 32
const remembered: StrataError[] = []

/**
 * Keeps a Strata error the processor is about to throw. Mastra's processor workflow (the phases after
 * a model response) reports a failure as `PROCESSOR_WORKFLOW_FAILED` carrying only the error's message,
 * no cause and no code: {@link strataErrorOf} finds the error again by its message.
 */
export function rememberProcessorError(error: StrataError): void {
  if (remembered.includes(error)) return
  if (remembered.length >= REMEMBERED) remembered.shift()
  remembered.push(error)
}

/** The newest remembered error whose message one of `messages` quotes. */
function thrownInProcessor(messages: readonly string[]): StrataError | undefined {
  for (let index = remembered.length - 1; index >= 0; index--) {
    const candidate = remembered[index]!
    if (messages.some((message) => message.includes(candidate.message))) return candidate
  }
  return undefined
}
