import { describe, expect, it } from 'vitest'
import { inMemoryStore } from '../stores'
import { createMemory } from './create-memory'
import { failureCode, markRequestFailed } from './mark-request-failed'

describe('failureCode', () => {
  it("takes the error's code, LangChain's lc_error_code, an HTTP status or a name beyond Error", () => {
    expect(failureCode(Object.assign(new Error('x'), { code: 'ECONNRESET', status: 500 }))).toBe('ECONNRESET')
    expect(failureCode({ lc_error_code: 'MODEL_RATE_LIMIT' })).toBe('MODEL_RATE_LIMIT')
    expect(failureCode({ status: 429 })).toBe('429')
    expect(failureCode({ statusCode: 503 })).toBe('503')
    expect(failureCode(new TypeError('bad'))).toBe('TypeError')
    expect(failureCode(new Error('plain'))).toBeUndefined()
    expect(failureCode('down')).toBeUndefined()
    expect(failureCode(null)).toBeUndefined()
  })
})

describe('markRequestFailed', () => {
  it("marks the turn's request failed with the error's message and code, readable by another process", async () => {
    const store = inMemoryStore()
    const thread = await createMemory({ store }).thread('failing')
    await thread.append({ role: 'user', content: 'Weather in Lima?' })
    await markRequestFailed(thread, Object.assign(new Error('provider down'), { statusCode: 503 }))
    const other = await createMemory({ store }).thread('failing')
    expect(await other.failures()).toMatchObject([{ reason: 'provider down', code: '503' }])
  })

  it('gives up a mark it cannot write: the caller sees the model error, not the mark failing', async () => {
    const thread = await createMemory().thread('no-request')
    // No request in the thread: markFailed refuses, and markRequestFailed does not throw.
    await expect(markRequestFailed(thread, new Error('down'))).resolves.toBeUndefined()
    expect(await thread.failures()).toEqual([])
  })
})
