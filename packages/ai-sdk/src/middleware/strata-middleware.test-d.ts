import type { LanguageModelV4Middleware } from '@ai-sdk/provider'
import { createMemory, type ThreadHold } from '@strata-memory/core'
import { type ToolSet, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expectTypeOf, it } from 'vitest'
import { type StrataTools, strataTools } from '../tools/strata-tools'
import { type StrataMiddlewareOptions, strataMiddleware } from './strata-middleware'

describe('public types', () => {
  it('gives wrapLanguageModel a v4 middleware whose level is one of the memory’s levels', () => {
    const memory = createMemory({ levels: ['global', 'session', 'interaction'] as const })
    const middleware = strataMiddleware({ memory, level: 'session' })
    expectTypeOf(middleware).toEqualTypeOf<LanguageModelV4Middleware>()
    wrapLanguageModel({ model: new MockLanguageModelV4(), middleware })
    // @ts-expect-error: 'task' is not a level of this memory
    strataMiddleware({ memory, level: 'task' })
  })

  it('gives tools that fit a ToolSet, with typed inputs', () => {
    const tools = strataTools(createMemory(), { threadId: 'chat-1' })
    // Spread into a tool set with the app's own tools, as the README shows.
    const set = { ...tools } satisfies ToolSet
    expectTypeOf(set.memory_query).toEqualTypeOf<StrataTools['memory_query']>()
    type RetrieveInput = Parameters<NonNullable<typeof tools.memory_retrieve.execute>>[0]
    expectTypeOf<RetrieveInput['id']>().toEqualTypeOf<string>()
    expectTypeOf<RetrieveInput['transform']>().toEqualTypeOf<
      'full' | 'excerpt' | 'summary' | 'first_n' | 'last_n' | 'filtered' | undefined
    >()
  })

  it("takes the request's ThreadHold, or false, as its hold", async () => {
    const memory = createMemory()
    const hold = await (await memory.thread('chat-1')).hold()
    expectTypeOf<StrataMiddlewareOptions['hold']>().toEqualTypeOf<ThreadHold | false | undefined>()
    strataMiddleware({ memory, hold })
    strataMiddleware({ memory, hold: false })
    // @ts-expect-error: true is not a hold
    strataMiddleware({ memory, hold: true })
    await hold.release()
  })
})
