import { describe, expect, it } from 'vitest'
import { retryBackoff } from './retry-backoff'

describe('retryBackoff', () => {
  it('is ready until a failure, then waits initialMs, doubling per failure up to maxMs', () => {
    const backoff = retryBackoff({ initialMs: 1_000, maxMs: 5_000 })
    expect(backoff.ready(0)).toBe(true)
    expect(backoff.retryAt).toBeUndefined()
    const waits: number[] = []
    let now = 0
    for (let failure = 0; failure < 5; failure++) {
      backoff.failed(now)
      waits.push(backoff.retryAt! - now)
      expect(backoff.ready(backoff.retryAt! - 1)).toBe(false)
      expect(backoff.ready(backoff.retryAt!)).toBe(true)
      now = backoff.retryAt!
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 5_000, 5_000])
    expect(backoff.failures).toBe(5)
  })

  it('a success clears the failures: the next failure waits initialMs again', () => {
    const backoff = retryBackoff({ initialMs: 1_000 })
    backoff.failed(0)
    backoff.failed(1_000)
    backoff.succeeded()
    expect(backoff.ready(1_001)).toBe(true)
    expect(backoff.failures).toBe(0)
    backoff.failed(10_000)
    expect(backoff.retryAt).toBe(11_000)
  })

  it('defaults to 30 s, doubling to at most 10 min', () => {
    const backoff = retryBackoff()
    backoff.failed(0)
    expect(backoff.retryAt).toBe(30_000)
    for (let failure = 0; failure < 10; failure++) backoff.failed(0)
    expect(backoff.retryAt).toBe(600_000)
  })
})
