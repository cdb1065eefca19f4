import { describe, expect, it } from 'vitest'
import { chatErrorOf, chatErrorText, isBusy } from './chat-error'

describe('the text of a failed chat request', () => {
  it("reads a refused request's JSON body as its code and message, never as raw JSON", () => {
    const busy = chatErrorOf(
      new Error(
        JSON.stringify({
          error: { code: 'STRATA_THREAD_BUSY', message: "Thread 'web-1' is held by another request." },
        }),
      ),
    )
    expect(busy).toEqual({
      code: 'STRATA_THREAD_BUSY',
      message: "Thread 'web-1' is held by another request.",
    })
    expect(isBusy(busy)).toBe(true)
    expect(chatErrorText(busy)).toMatch(/^This chat is busy: another tab or device/)
    const bad = chatErrorOf(new Error('{"error":{"code":"STRATA_INVALID_THREAD_ID","message":"Bad id."}}'))
    expect(bad).toEqual({ code: 'STRATA_INVALID_THREAD_ID', message: 'Bad id.' })
    expect(chatErrorText(bad)).toBe('Bad id.')
    expect(chatErrorText(chatErrorOf(new Error('{"unrelated":true}')))).not.toContain('{')
  })

  it('reads a stream error, a network failure and a hidden error as a code and a sentence', () => {
    expect(chatErrorOf(new Error('STRATA_REWIND_UNSAFE: The answer opened a scope.'))).toEqual({
      code: 'STRATA_REWIND_UNSAFE',
      message: 'The answer opened a scope.',
    })
    expect(chatErrorOf(new TypeError('Failed to fetch')).code).toBe('NETWORK')
    expect(chatErrorOf(new Error('An error occurred.'))).toEqual({
      code: 'INTERNAL_ERROR',
      message: 'The server could not finish the answer.',
    })
    expect(chatErrorOf(new Error('Something else'))).toEqual({ code: 'ERROR', message: 'Something else' })
  })
})
