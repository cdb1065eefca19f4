import { describe, expect, it } from 'vitest'
import { chatErrorText } from './chat-error'

describe('the text of a failed chat request', () => {
  it("shows a refused request's JSON body as its message and code, anything else as it is", () => {
    const busy = new Error(
      JSON.stringify({
        error: { code: 'STRATA_THREAD_BUSY', message: "Thread 'web-1' is held by another request." },
      }),
    )
    expect(chatErrorText(busy)).toBe("Thread 'web-1' is held by another request. (STRATA_THREAD_BUSY)")
    expect(chatErrorText(new Error('STRATA_INVALID_MESSAGE: History diverged.'))).toBe(
      'STRATA_INVALID_MESSAGE: History diverged.',
    )
    expect(chatErrorText(new Error('{"unrelated":true}'))).toBe('{"unrelated":true}')
  })
})
