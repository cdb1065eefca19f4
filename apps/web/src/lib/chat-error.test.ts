import { describe, expect, it } from 'vitest'
import { chatErrorOf, isBehind, isBusy } from './chat-error'

describe('the text of a failed chat request', () => {
  it("reads a refused request's JSON body as its code and a sentence for people, never as raw JSON", () => {
    const busy = chatErrorOf(
      new Error(
        JSON.stringify({
          error: { code: 'STRATA_THREAD_BUSY', message: "Thread 'web-1' is held by another request." },
        }),
      ),
    )
    expect(busy.code).toBe('STRATA_THREAD_BUSY')
    expect(busy.message).toMatch(/^This chat is busy/)
    expect(isBusy(busy)).toBe(true)
    expect(isBehind(busy)).toBe(false)
    const behind = chatErrorOf(new Error('{"error":{"code":"STRATA_SEQ_CONFLICT","message":"Changed."}}'))
    expect(isBehind(behind)).toBe(true)
    expect(chatErrorOf(new Error('{"unrelated":true}')).message).not.toContain('{')
  })

  it('reads a stream error and a network failure as a code and a sentence', () => {
    const rewind = chatErrorOf(new Error('STRATA_REWIND_UNSAFE: The answer opened a scope.'))
    expect(rewind.code).toBe('STRATA_REWIND_UNSAFE')
    expect(rewind.message).not.toContain('STRATA_')
    expect(rewind.details.developerMessage).toBe('The answer opened a scope.')
    expect(chatErrorOf(new TypeError('Failed to fetch')).code).toBe('NETWORK_ERROR')
  })
})
