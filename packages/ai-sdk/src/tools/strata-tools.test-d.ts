import { createMemory } from '@strata-memory/core'
import type { ToolSet } from 'ai'
import { describe, expectTypeOf, it } from 'vitest'
import { type StrataScopeTools, type StrataTools, strataTools } from './strata-tools'

describe('strataTools types', () => {
  it('adds the scope tools only with scopes: true, and either result is a ToolSet as it is', () => {
    const memory = createMemory()
    const plain = strataTools(memory, { threadId: 'chat-1' })
    expectTypeOf(plain).toEqualTypeOf<StrataTools>()
    expectTypeOf(plain).toExtend<ToolSet>()
    // @ts-expect-error: the scope tools are opt-in
    plain.enter_scope
    const scoped = strataTools(memory, { threadId: 'chat-1', scopes: true })
    expectTypeOf(scoped).toEqualTypeOf<StrataTools & StrataScopeTools>()
    expectTypeOf(scoped).toExtend<ToolSet>()
    type ExitInput = Parameters<NonNullable<typeof scoped.exit_scope.execute>>[0]
    expectTypeOf<ExitInput['outcome']>().toEqualTypeOf<'complete' | 'cancelled' | 'aborted' | undefined>()
    expectTypeOf<ExitInput['summary']>().toEqualTypeOf<string>()
  })
})
