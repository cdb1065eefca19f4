import { describe, expect, it } from 'vitest'
import { createMemory } from '../memory'
import { modelLimits } from './model-limits'
import { resolveCompaction } from './policy-registry'

describe('modelLimits', () => {
  it('finds a model by id, dated id or provider-prefixed id; the longest prefix wins', () => {
    expect(modelLimits('gpt-4o')).toEqual({ maxContextTokens: 128_000, maxOutputTokens: 16_384 })
    expect(modelLimits('gpt-4o-2024-08-06')).toEqual(modelLimits('gpt-4o'))
    expect(modelLimits('openai/gpt-4.1')).toMatchObject({ maxContextTokens: 1_047_576 })
    expect(modelLimits('anthropic:claude-sonnet-4-20250514')).toMatchObject({ maxOutputTokens: 64_000 })
    expect(modelLimits('claude-3-5-haiku-latest')).toMatchObject({ maxOutputTokens: 8_192 })
    // 'o3' must not swallow 'o3x' nor 'gpt-4o' swallow 'gpt-4omega'.
    expect(modelLimits('o3x')).toBeUndefined()
    expect(modelLimits('gpt-4omega')).toBeUndefined()
    expect(modelLimits('my-local-llama')).toBeUndefined()
  })
})

describe('budget defaults from the model', () => {
  it('uses the model’s window and output, and explicit options over them', () => {
    const fromModel = resolveCompaction({ budget: { model: 'gpt-4o' } }).budget
    expect(fromModel).toMatchObject({ inputBudget: 128_000 - 16_384 - 2_000 })
    const overridden = resolveCompaction({ budget: { model: 'gpt-4o', maxOutputTokens: 4_000 } }).budget
    expect(overridden).toMatchObject({ inputBudget: 128_000 - 4_000 - 2_000 })
    const explicit = resolveCompaction({ budget: { maxOutputTokens: 8_000 } }).budget
    expect(explicit).toMatchObject({ inputBudget: 200_000 - 8_000 - 2_000 })
  })

  it('an unknown model without sizes, or no model and no output size, is a typed error that says what to give', () => {
    expect(() => createMemory({ compaction: { budget: { model: 'my-local-llama' } } })).toThrowError(
      expect.objectContaining({
        code: 'STRATA_INVALID_OPTIONS',
        message: expect.stringContaining('maxOutputTokens'),
      }),
    )
    expect(() => createMemory({ compaction: { budget: {} } })).toThrowError(
      expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS', message: expect.stringContaining('model') }),
    )
    expect(() => createMemory({ compaction: { budget: { model: '' } } })).toThrowError(
      expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' }),
    )
  })
})
