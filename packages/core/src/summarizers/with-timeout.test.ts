import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { StrataError } from '../errors'
import type { SummarizeOptions, SummarizeResult, Summarizer } from './summarizer'
import { anySignal, withTimeout } from './with-timeout'

/** A summarizer that answers only when told to, and records the signal it got. */
function scripted() {
  const seen: { signal?: AbortSignal } = {}
  let answer!: (result: SummarizeResult) => void
  let fail!: (error: unknown) => void
  const summarizer: Summarizer = {
    name: 'scripted',
    summarize: (_items, options: SummarizeOptions) => {
      seen.signal = options.signal
      return new Promise<SummarizeResult>((resolve, reject) => {
        answer = resolve
        fail = reject
      })
    },
  }
  return {
    summarizer,
    seen,
    answer: (result: SummarizeResult) => answer(result),
    fail: (e: unknown) => fail(e),
  }
}

async function rejection(promise: Promise<unknown>): Promise<StrataError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(StrataError.isInstance(error, 'STRATA_SUMMARIZER_FAILED')).toBe(true)
  return error as StrataError
}

describe('withTimeout', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('passes the answer through, keeps the name and clears its timer', async () => {
    const { summarizer, seen, answer } = scripted()
    const wrapped = withTimeout(summarizer, { timeoutMs: 1_000 })
    expect(wrapped.name).toBe('scripted')
    const pending = wrapped.summarize([], { tier: 'scope' })
    expect(vi.getTimerCount()).toBe(1)
    answer({ summary: 'ok', facts: [] })
    await expect(pending).resolves.toEqual({ summary: 'ok', facts: [] })
    expect(seen.signal?.aborted).toBe(false)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('times out: rejects with reason timeout and aborts the inner signal', async () => {
    const { summarizer, seen, answer } = scripted()
    const pending = withTimeout(summarizer, { timeoutMs: 1_000 }).summarize([], { tier: 'short-term' })
    const failed = rejection(pending)
    await vi.advanceTimersByTimeAsync(999)
    expect(seen.signal?.aborted).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const error = await failed
    expect(error.details).toEqual({ reason: 'timeout', summarizer: 'scripted' })
    expect(error.message).toContain('within 1000 ms')
    expect(seen.signal?.aborted).toBe(true)
    expect(seen.signal?.reason).toMatchObject({ name: 'TimeoutError' })
    expect(vi.getTimerCount()).toBe(0)
    // A late answer changes nothing.
    answer({ summary: 'late', facts: [] })
    await expect(pending).rejects.toBe(error)
  })

  it('rejects with reason aborted when the caller aborts, and clears the timer', async () => {
    const { summarizer, seen } = scripted()
    const controller = new AbortController()
    const pending = withTimeout(summarizer, { timeoutMs: 1_000 }).summarize([], {
      tier: 'scope',
      signal: controller.signal,
    })
    const failed = rejection(pending)
    const reason = new Error('shutdown')
    controller.abort(reason)
    const error = await failed
    expect(error.details).toEqual({ reason: 'aborted', summarizer: 'scripted' })
    expect(error.cause).toBe(reason)
    expect(seen.signal?.aborted).toBe(true)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('rejects at once, without calling the inner summarizer, when the caller already aborted', async () => {
    const summarize = vi.fn()
    const wrapped = withTimeout({ name: 'never', summarize }, { timeoutMs: 1_000 })
    const error = await rejection(wrapped.summarize([], { tier: 'scope', signal: AbortSignal.abort() }))
    expect(error.details.reason).toBe('aborted')
    expect(summarize).not.toHaveBeenCalled()
    expect(vi.getTimerCount()).toBe(0)
  })

  it('wraps an inner error with reason error and the cause', async () => {
    const { summarizer, fail } = scripted()
    const failed = rejection(
      withTimeout(summarizer, { timeoutMs: 1_000 }).summarize([], { tier: 'episodic' }),
    )
    const cause = new Error('rate limited')
    fail(cause)
    const error = await failed
    expect(error.details).toEqual({ reason: 'error', summarizer: 'scripted' })
    expect(error.cause).toBe(cause)
    expect(error.message).toContain('rate limited')
    expect(vi.getTimerCount()).toBe(0)
  })

  it('wraps a synchronous throw too', async () => {
    const cause = new Error('bad input')
    const summarizer: Summarizer = {
      name: 'sync',
      summarize: () => {
        throw cause
      },
    }
    const error = await rejection(
      withTimeout(summarizer, { timeoutMs: 1_000 }).summarize([], { tier: 'scope' }),
    )
    expect(error.details.reason).toBe('error')
    expect(error.cause).toBe(cause)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('sets no timer for Infinity and refuses a non-positive time-out', async () => {
    const { summarizer, answer } = scripted()
    const pending = withTimeout(summarizer, { timeoutMs: Number.POSITIVE_INFINITY }).summarize([], {
      tier: 'scope',
    })
    expect(vi.getTimerCount()).toBe(0)
    answer({ summary: 'ok', facts: [] })
    await expect(pending).resolves.toMatchObject({ summary: 'ok' })
    for (const timeoutMs of [0, -1, Number.NaN]) {
      expect(() => withTimeout(summarizer, { timeoutMs })).toThrow(/timeoutMs must be a positive number/)
    }
  })
})

describe('anySignal', () => {
  const original = AbortSignal.any
  afterEach(() => {
    Object.defineProperty(AbortSignal, 'any', { value: original, configurable: true, writable: true })
  })

  for (const native of [true, false]) {
    it(`aborts with the first reason (${native ? 'AbortSignal.any' : 'fallback'})`, () => {
      if (!native)
        Object.defineProperty(AbortSignal, 'any', { value: undefined, configurable: true, writable: true })
      const first = new AbortController()
      const second = new AbortController()
      const { signal, dispose } = anySignal([first.signal, second.signal])
      // Node 24 settles an AbortSignal.any signal that nobody listens to lazily, with the first
      // aborted source's reason; withTimeout always listens, as here.
      const onAbort = vi.fn()
      signal.addEventListener('abort', onAbort)
      expect(signal.aborted).toBe(false)
      second.abort('second')
      first.abort('first')
      expect(signal.aborted).toBe(true)
      expect(signal.reason).toBe('second')
      expect(onAbort).toHaveBeenCalledTimes(1)
      dispose()
      expect(anySignal([AbortSignal.abort('done')]).signal.reason).toBe('done')
    })
  }

  it('the fallback removes its listeners on dispose', () => {
    Object.defineProperty(AbortSignal, 'any', { value: undefined, configurable: true, writable: true })
    const source = new AbortController()
    const { signal, dispose } = anySignal([source.signal])
    dispose()
    source.abort()
    expect(signal.aborted).toBe(false)
  })
})
