import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { inMemoryStore } from '../stores'
import { createMemory, type MemoryOptions } from './create-memory'
import { MEMORY_OPTION_KEYS } from './option-keys'

/** True when two key unions are the same: the check knows every key of `MemoryOptions` and no other. */
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const optionKeysMatch: SameKeys<keyof typeof MEMORY_OPTION_KEYS, keyof MemoryOptions> = true

/** The refusal `createMemory(options)` throws. */
function refusal(options: object): StrataError<'STRATA_INVALID_OPTIONS'> {
  try {
    createMemory(options as never)
  } catch (error) {
    if (StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')) return error
    throw error
  }
  throw new Error('expected createMemory to refuse the options')
}

describe('createMemory refuses options it does not know', () => {
  it('knows every key of MemoryOptions (a type error when one is added to the type only)', () => {
    expect(optionKeysMatch).toBe(true)
    expect(Object.keys(MEMORY_OPTION_KEYS)).toContain('compaction')
  })

  it('a key known elsewhere names where it belongs', () => {
    const error = refusal({ budget: { inputTokens: 8_000 } })
    expect(error.message).toMatch(
      /^createMemory: unknown option 'budget' \(did you mean 'compaction\.budget'\?\)\. createMemory takes store, levels, /,
    )
    expect(error.details).toEqual({ option: 'budget', suggestion: 'compaction.budget' })
  })

  it('a typo inside compaction, a budget, content, resources and telemetry names the key it looks like', () => {
    expect(refusal({ compaction: { buget: {} } }).details).toEqual({
      option: 'compaction.buget',
      suggestion: 'compaction.budget',
    })
    expect(refusal({ compaction: { budget: { inputToken: 8_000 } } }).details).toEqual({
      option: 'compaction.budget.inputToken',
      suggestion: 'compaction.budget.inputTokens',
    })
    expect(refusal({ content: { offloadAboveByte: 10 } }).details.suggestion).toBe(
      'content.offloadAboveBytes',
    )
    expect(refusal({ resources: { recal: false } }).details.suggestion).toBe('resources.recall')
    expect(refusal({ telemetry: { tracr: {} } }).details.suggestion).toBe('telemetry.tracer')
  })

  it('a key like none names only what the place takes', () => {
    const error = refusal({ compaction: { waterfall: { size: 3 } } })
    expect(error.message).toBe(
      "createMemory: unknown option 'compaction.waterfall.size'. compaction.waterfall takes window, every.",
    )
    expect(error.details).toEqual({ option: 'compaction.waterfall.size' })
  })

  it('every documented option is taken, and a policy turned off with false is not looked into', async () => {
    const memory = createMemory({
      store: inMemoryStore(),
      levels: ['global', 'task'],
      clock: Date.now,
      generateId: () => crypto.randomUUID(),
      compaction: {
        budget: { inputTokens: 8_000, rawTailTurns: 2 },
        waterfall: false,
        summarizerTimeoutMs: 1_000,
      },
      content: { offloadAboveBytes: 4_096, maxCitations: false },
      resources: { recall: false },
      telemetry: {},
    })
    const thread = await memory.thread('known-options')
    await thread.append({ role: 'user', content: 'Hello' })
    expect((await thread.context()).messages).toHaveLength(1)
  })
})
