import { MiddlewareError, ToolInvocationError } from 'langchain'

/** LangGraph's interrupts and other bubbling signals carry `is_bubble_up` (its `isGraphBubbleUp`). */
const bubblesUp = (error: unknown) =>
  typeof error === 'object' && error !== null && (error as { is_bubble_up?: unknown }).is_bubble_up === true

/**
 * A tool's own error, handed on so that `ToolNode` feeds it back to the model as it does when no
 * middleware wraps tool calls (its default `handleToolErrors`: a `ToolMessage` reading the error and
 * "Please fix your mistakes.", `status: 'error'`) and the run goes on. Any middleware that wraps tool
 * calls makes `ToolNode` take an error that leaves the wrapper for the middleware's own and end the
 * run, except a `ToolInvocationError` (an invalid tool input), which it feeds back: so the error is
 * handed on as one, worded as the default handler words a tool's error, the tool's error its `cause`.
 * A middleware listed before Strata (`toolRetryMiddleware`) still sees an error and retries.
 *
 * Undefined for what is not a tool's own error, which goes on as it is: an interrupt (a human in the
 * loop), an abort, an error another middleware raised (`MiddlewareError`), an invalid tool input.
 */
export function fedBackToolError(
  error: unknown,
  toolCall: { id?: string | undefined; name: string; args?: unknown },
  signal: AbortSignal | undefined,
): Error | undefined {
  if (bubblesUp(error) || signal?.aborted === true) return undefined
  if (MiddlewareError.isInstance(error) || ToolInvocationError.isInstance(error)) return undefined
  const fed = new Error(`${error}\n Please fix your mistakes.`, { cause: error })
  fed.name = 'ToolInvocationError'
  return Object.assign(fed, { '~brand': 'ToolInvocationError', toolCall, toolError: error })
}
