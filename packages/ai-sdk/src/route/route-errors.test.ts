import { createMemory, StrataError } from '@strata-memory/core'
import { createUIMessageStream, streamText, toUIMessageStream, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { strataMiddleware } from '../middleware/strata-middleware'
import { streamed } from '../testing/model-results'
import { strataTools } from '../tools/strata-tools'
import { strataErrorResponse, strataErrorStatus, strataOnError } from './route-errors'

describe('strataOnError', () => {
  it('gives a Strata error its code and message, and hides any other error', () => {
    const error = new StrataError({ code: 'STRATA_INVALID_MESSAGE', message: "history: 'full' diverged." })
    // The page reads a text for people; the developer's message stays on the server.
    expect(strataOnError(error)).toBe(
      'STRATA_INVALID_MESSAGE: This message could not be added to the chat. Reload the chat and try again.',
    )
    expect(strataOnError(new Error('database password is hunter2'))).toBe('An error occurred.')
    expect(strataOnError('a string')).toBe('An error occurred.')
  })

  it('puts the Strata code in the error chunk of a UI message stream whose model call failed', async () => {
    const memory = createMemory()
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doStream: async () => streamed('unused') }),
      middleware: strataMiddleware({ memory }),
    })
    const stream = createUIMessageStream({
      execute: async ({ writer }) => {
        // No thread id anywhere: the middleware refuses the call with STRATA_INVALID_OPTIONS.
        const result = streamText({ model, prompt: 'Hello' })
        writer.merge(toUIMessageStream({ stream: result.stream, onError: strataOnError }))
        await result.consumeStream({ onError: () => {} })
      },
      onError: strataOnError,
    })
    const chunks: { type: string; errorText?: string }[] = []
    const reader = stream.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value as { type: string; errorText?: string })
    }
    const errors = chunks.filter((chunk) => chunk.type === 'error')
    expect(errors.length).toBeGreaterThan(0)
    expect(errors[0]!.errorText).toMatch(/^STRATA_INVALID_OPTIONS: The page sent a request/)
  })
})

describe('strataErrorResponse', () => {
  it('turns the synchronous throw of strataTools on a bad thread id into a 400 with Strata message', async () => {
    const memory = createMemory()
    let response: Response | undefined
    try {
      strataTools(memory, { threadId: '', scopes: true })
    } catch (error) {
      response = strataErrorResponse(error)
    }
    expect(response?.status).toBe(400)
    const body = (await response!.json()) as {
      error: { code: string; message: string; details: { developerMessage: string } }
    }
    expect(body.error.code).toBe('STRATA_INVALID_THREAD_ID')
    expect(body.error.message).toBe('This chat’s address is not valid. Start a new chat.')
    expect(body.error.details.developerMessage).toMatch(/thread id/i)
  })

  it('keeps the message of an error that is not Strata private, with status 500; a seq conflict is 409', async () => {
    const response = strataErrorResponse(new Error('secret detail'))
    expect(response.status).toBe(500)
    expect(JSON.stringify(await response.json())).not.toContain('secret')
    const conflict = new StrataError({ code: 'STRATA_SEQ_CONFLICT', message: 'Send it again.' })
    expect(strataErrorStatus(conflict)).toBe(409)
    const failed = new StrataError({ code: 'STRATA_STORE_FAILED', message: 'Redis did not answer.' })
    expect(strataErrorStatus(failed)).toBe(503)
  })

  it('tells people a chat whose history the store lost cannot go on, and a store that did not answer to try later', async () => {
    const lost = new StrataError({
      code: 'STRATA_THREAD_LOST',
      message: "Thread 'c' lost history: … accept the loss with deleteThread('c').",
      details: { threadId: 'c', knownSeq: 4, storeSeq: 0, reason: 'log-missing' },
    })
    const response = strataErrorResponse(lost)
    expect(response.status).toBe(500)
    const body = (await response.json()) as {
      error: { message: string; details: { developerMessage: string } }
    }
    expect(body.error.message).toBe(
      'This chat’s history was lost on the server, so it cannot go on. Start a new chat.',
    )
    expect(body.error.details.developerMessage).toContain('deleteThread')
    expect(strataOnError(lost)).toBe(
      'STRATA_THREAD_LOST: This chat’s history was lost on the server, so it cannot go on. Start a new chat.',
    )
    const down = new StrataError({ code: 'STRATA_STORE_FAILED', message: 'Redis did not answer head.' })
    expect(strataOnError(down)).toBe(
      'STRATA_STORE_FAILED: The server cannot reach its memory just now. Try again in a moment.',
    )
  })

  it('answers a thread another request holds with a 409 carrying STRATA_THREAD_BUSY, and a request over the budget with a 413', async () => {
    const memory = createMemory()
    const thread = await memory.thread('busy')
    const hold = await thread.hold()
    let response: Response | undefined
    try {
      await thread.hold()
    } catch (error) {
      response = strataErrorResponse(error)
    }
    expect(response?.status).toBe(409)
    const body = (await response!.json()) as {
      error: { code: string; message: string; details: { developerMessage: string } }
    }
    expect(body.error.code).toBe('STRATA_THREAD_BUSY')
    expect(body.error.message).toMatch(/^This chat is busy with another reply/)
    expect(body.error.details.developerMessage).toContain("Thread 'busy' is held by another request")
    await hold.release()
    const budget = new StrataError({
      code: 'STRATA_BUDGET_EXCEEDED',
      message: 'Too large.',
      details: { inputBudget: 10, systemTokens: 5, requestTokens: 20 },
    })
    expect(strataErrorStatus(budget)).toBe(413)
  })
})
