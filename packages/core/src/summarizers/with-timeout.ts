import { invalidOptions, StrataError, shownValue } from '../errors'
import type { Item } from '../items'
import type { SummarizeOptions, SummarizeResult, Summarizer } from './summarizer'

/** Options of {@link withTimeout}. */
export interface WithTimeoutOptions {
  /**
   * Milliseconds before the inner call is aborted and the summary fails. `Infinity` disables the timer
   * (the caller's signal still aborts).
   */
  timeoutMs: number
}

/** Why a wrapped summary failed, in `error.details.reason`. */
export type SummarizerFailureReason = 'timeout' | 'aborted' | 'error'

/** Longest delay `setTimeout` honours; longer ones fire at once, so they mean "no timer" here. */
const MAX_TIMER_MS = 2_147_483_647

/**
 * One signal that aborts when any of the given ones does, with the first one's reason.
 * `AbortSignal.any` exists from Node 20.3; older runtimes get a listener-based fallback, whose
 * listeners `dispose` removes.
 */
export function anySignal(signals: readonly AbortSignal[]): { signal: AbortSignal; dispose: () => void } {
  if (typeof AbortSignal.any === 'function') return { signal: AbortSignal.any([...signals]), dispose() {} }
  const controller = new AbortController()
  const aborted = signals.find((signal) => signal.aborted)
  if (aborted !== undefined) {
    controller.abort(aborted.reason)
    return { signal: controller.signal, dispose() {} }
  }
  const listeners = signals.map((signal) => {
    const listener = () => controller.abort(signal.reason)
    signal.addEventListener('abort', listener, { once: true })
    return () => signal.removeEventListener('abort', listener)
  })
  return {
    signal: controller.signal,
    dispose: () => {
      for (const remove of listeners) remove()
    },
  }
}

function failure(name: string, reason: SummarizerFailureReason, timeoutMs: number, cause: unknown) {
  const messages: Record<SummarizerFailureReason, string> = {
    timeout: `Summarizer '${name}' did not answer within ${timeoutMs} ms and was aborted. The log was left untouched; raise timeoutMs or use a faster model.`,
    aborted: `Summarizer '${name}' was aborted by the caller. The log was left untouched.`,
    error: `Summarizer '${name}' failed: ${cause instanceof Error ? cause.message : String(cause)}. The log was left untouched; see the cause.`,
  }
  return new StrataError({
    code: 'STRATA_SUMMARIZER_FAILED',
    message: messages[reason],
    cause,
    details: { reason, summarizer: name },
  })
}

/**
 * Wraps a summarizer with a time-out: the inner call gets a signal that aborts when the caller's signal
 * does or after `timeoutMs`, and the wrapped call rejects at once with `STRATA_SUMMARIZER_FAILED`
 * (`details.reason`: `'timeout'`, `'aborted'` or `'error'` for the inner summarizer's own failure, which
 * is the `cause`), even if the inner call ignores its signal. The timer is cleared on every path.
 *
 * @example
 * const summarizer = withTimeout(mySummarizer, { timeoutMs: 30_000 })
 */
export function withTimeout(summarizer: Summarizer, { timeoutMs }: WithTimeoutOptions): Summarizer {
  if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs <= 0) {
    invalidOptions(
      `withTimeout(): timeoutMs must be a positive number of milliseconds or Infinity (got ${shownValue(timeoutMs)}).`,
      { timeoutMs },
    )
  }
  const name = summarizer.name
  return {
    name,
    async summarize(items: readonly Item[], options: SummarizeOptions): Promise<SummarizeResult> {
      const caller = options.signal
      if (caller?.aborted) throw failure(name, 'aborted', timeoutMs, caller.reason)
      const timer = new AbortController()
      const handle =
        timeoutMs <= MAX_TIMER_MS
          ? setTimeout(
              () => timer.abort(new DOMException(`Timed out after ${timeoutMs} ms.`, 'TimeoutError')),
              timeoutMs,
            )
          : undefined
      const combined = anySignal(caller === undefined ? [timer.signal] : [caller, timer.signal])
      const signal = combined.signal
      // Which source fired decides the reason; the caller wins a tie, since it asked explicitly.
      const abortFailure = () =>
        caller?.aborted
          ? failure(name, 'aborted', timeoutMs, caller.reason)
          : failure(name, 'timeout', timeoutMs, signal.reason)
      let onAbort: (() => void) | undefined
      try {
        return await new Promise<SummarizeResult>((resolve, reject) => {
          onAbort = () => reject(abortFailure())
          signal.addEventListener('abort', onAbort, { once: true })
          // Settling twice is a no-op, so a late answer or rejection after the abort is ignored.
          const fail = (error: unknown) =>
            reject(signal.aborted ? abortFailure() : failure(name, 'error', timeoutMs, error))
          try {
            summarizer.summarize(items, { ...options, signal }).then(resolve, fail)
          } catch (error) {
            fail(error)
          }
        })
      } finally {
        if (handle !== undefined) clearTimeout(handle)
        if (onAbort !== undefined) signal.removeEventListener('abort', onAbort)
        combined.dispose()
      }
    },
  }
}
