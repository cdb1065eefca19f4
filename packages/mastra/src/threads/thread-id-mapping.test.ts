import { createMemory, isValidThreadId, StrataError } from '@strata-memory/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StrataMemory } from '../memory/strata-memory'
import { escapeThreadId, isHashedThreadId, toStrataThreadId, unescapeThreadId } from './thread-id-mapping'

/** Well-formed strings (no lone surrogates), biased towards the characters ids really hold. */
const mastraIds = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
  fc.stringMatching(/^[a-z0-9@._\-/ ]{1,200}$/),
  fc.emailAddress(),
)

describe('Mastra thread ids onto Strata thread ids', () => {
  it('maps emails, slashes and spaces to valid ids, readably', async () => {
    expect(await toStrataThreadId('ana@example.com/trip 1')).toBe('ana_40example.com_2Ftrip_201')
    expect(await toStrataThreadId('plain-id.7')).toBe('plain-id.7')
    expect(await toStrataThreadId('.hidden')).toBe('_2Ehidden')
    expect(await toStrataThreadId('snake_case')).toBe('snake_5Fcase')
    expect(await toStrataThreadId('café')).toBe('caf_C3_A9')
  })

  it('property: every mapped id is valid, distinct ids stay distinct, and escaped ids read back', async () => {
    await fc.assert(
      fc.asyncProperty(mastraIds, mastraIds, async (a, b) => {
        const [mappedA, mappedB] = await Promise.all([toStrataThreadId(a), toStrataThreadId(b)])
        expect(isValidThreadId(mappedA)).toBe(true)
        if (a !== b) expect(mappedA).not.toBe(mappedB)
        if (isHashedThreadId(mappedA)) expect(escapeThreadId(a).length).toBeGreaterThan(128)
        else expect(unescapeThreadId(mappedA)).toBe(a)
      }),
      { numRuns: 300 },
    )
  })

  it('a long id is hashed, and its original is kept with the thread', async () => {
    const long = `user@example.com/${'conversation '.repeat(20)}`
    const mapped = await toStrataThreadId(long)
    expect(mapped.length).toBeLessThanOrEqual(128)
    expect(isHashedThreadId(mapped)).toBe(true)
    expect(unescapeThreadId(mapped)).toBeUndefined()
    const strata = new StrataMemory({ memory: createMemory() })
    await strata.saveThread({
      thread: { id: long, resourceId: 'ana', createdAt: new Date(), updatedAt: new Date() },
    })
    expect((await strata.getThreadById({ threadId: long }))?.id).toBe(long)
    expect((await strata.listThreads({})).threads.map((thread) => thread.id)).toEqual([long])
  })

  it('refuses what has no mapping with STRATA_INVALID_THREAD_ID', async () => {
    for (const id of ['', 'lone \uD83D surrogate', 42 as never]) {
      const error = await toStrataThreadId(id).catch((caught: unknown) => caught)
      expect(StrataError.isInstance(error, 'STRATA_INVALID_THREAD_ID')).toBe(true)
      expect((error as StrataError).details).toMatchObject({ reason: 'unmappable' })
    }
  })
})
