import { createMemory } from '@strata-memory/core'
import type { ToolSet } from 'ai'
import { describe, expectTypeOf, it } from 'vitest'
import {
  type StrataResourceTools,
  type StrataScopeTools,
  type StrataTools,
  strataTools,
} from './strata-tools'

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
  it('adds memory_update_working only with a resource', () => {
    const memory = createMemory()
    const withResource = strataTools(memory, { threadId: 'chat-1', resource: 'user-1' })
    expectTypeOf(withResource).toEqualTypeOf<StrataTools & StrataResourceTools>()
    expectTypeOf(withResource).toExtend<ToolSet>()
    type UpdateInput = Parameters<NonNullable<typeof withResource.memory_update_working.execute>>[0]
    expectTypeOf<UpdateInput>().toEqualTypeOf<{ content: string; version: number }>()
    const both = strataTools(memory, { threadId: 'chat-1', resource: 'user-1', scopes: true })
    expectTypeOf(both).toEqualTypeOf<StrataTools & StrataScopeTools & StrataResourceTools>()
    const readOnly = strataTools(memory, { threadId: 'chat-1', resource: 'user-1', workingMemory: false })
    expectTypeOf(readOnly).toEqualTypeOf<StrataTools>()
  })
})
