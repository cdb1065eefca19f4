import { createMemory, StrataError } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { strataTools } from '../tools/strata-tools'
import { strataMiddleware } from './strata-middleware'

/** The StrataError `run` throws. */
function refusal(run: () => unknown): StrataError {
  try {
    run()
  } catch (error) {
    if (StrataError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected a refusal')
}

describe('misspelt options', () => {
  const memory = createMemory()

  it('strataMiddleware refuses a key it does not take, naming the one it looks like', () => {
    const error = refusal(() => strataMiddleware({ memory, threadID: 'chat-1' } as never))
    expect(error.code).toBe('STRATA_INVALID_OPTIONS')
    expect(error.message).toBe(
      "strataMiddleware(): unknown option 'threadID' (did you mean 'threadId'?). It takes memory, resource, level, system, history, onDivergence, threadId, state, tracing, hold.",
    )
    expect(refusal(() => strataMiddleware({ memory, hold: { idle: 100 } } as never)).message).toBe(
      "strataMiddleware({ hold }): unknown option 'idle' (did you mean 'idleMs'?). It takes ttlMs, idleMs.",
    )
    expect(() => strataMiddleware({ memory, threadId: 'chat-1', hold: { idleMs: 0 } })).not.toThrow()
  })

  it('strataTools refuses a key it does not take', () => {
    expect(refusal(() => strataTools(memory, { scope: true } as never)).message).toBe(
      "strataTools(memory, options): unknown option 'scope' (did you mean 'scopes'?). It takes threadId, scopes, resource, workingMemory.",
    )
    expect(strataTools(memory, { scopes: true }).map((tool) => tool.name)).toContain('enter_scope')
  })

  it('a resource outside the id rule is named a resource id, as at call time', () => {
    const error = refusal(() => strataMiddleware({ memory, resource: 'a@b.com' }))
    expect(error.code).toBe('STRATA_INVALID_THREAD_ID')
    expect(error.message).toMatch(/^Invalid resource id "a@b\.com": resource ids follow the thread-id rule/)
  })
})
