import {
  appThreadIdOf,
  createMemory,
  isValidThreadId,
  StrataError,
  toStoreThreadId,
} from '@strata-memory/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StrataMemory } from '../memory/strata-memory'
import {
  escapeThreadId,
  isHashedThreadId,
  resolveStrataThreadId,
  toStrataThreadId,
  unescapeThreadId,
} from './thread-id-mapping'

/** Well-formed strings (no lone surrogates), biased towards the characters ids really hold. */
const mastraIds = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
  fc.stringMatching(/^[a-z0-9@._\-/ ]{1,200}$/),
  fc.emailAddress(),
)

describe('Mastra thread ids onto Strata thread ids', () => {
  it("maps emails, slashes and spaces as core does (the CLI's and every adapter's mapping), readably", async () => {
    expect(await toStrataThreadId('ana@example.com/trip 1')).toBe('_.ana_40example.com_2Ftrip_201')
    expect(await toStrataThreadId('plain-id.7')).toBe('plain-id.7')
    expect(await toStrataThreadId('snake_case')).toBe('snake_case')
    expect(await toStrataThreadId('.hidden')).toBe('_..hidden')
    expect(await toStrataThreadId('café')).toBe('_.caf_C3_A9')
    for (const id of ['ana@example.com/trip 1', 'snake_case', 'café'])
      expect(await toStrataThreadId(id)).toBe(await toStoreThreadId(id))
  })

  it('property: every mapped id is valid, distinct ids stay distinct, and mapped ids read back', async () => {
    await fc.assert(
      fc.asyncProperty(mastraIds, mastraIds, async (a, b) => {
        const [mappedA, mappedB] = await Promise.all([toStrataThreadId(a), toStrataThreadId(b)])
        expect(isValidThreadId(mappedA)).toBe(true)
        if (a !== b) expect(mappedA).not.toBe(mappedB)
        if (isHashedThreadId(mappedA)) expect(mappedA.length).toBeLessThanOrEqual(128)
        else expect(appThreadIdOf(mappedA)).toBe(a)
      }),
      { numRuns: 300 },
    )
  })

  it('a thread an earlier version stored under the escaped id keeps its history; a new one takes the shared id', async () => {
    const memory = createMemory()
    const legacy = escapeThreadId('ana@example.com/old')
    expect(legacy).toBe('ana_40example.com_2Fold')
    await memory.store.append(
      legacy,
      [
        {
          type: 'message',
          role: 'user',
          level: 'global',
          content: [{ type: 'text', text: 'Plant the trees.' }],
        } as never,
      ],
      { expectedSeq: 0 },
    )
    const strata = new StrataMemory({ memory })
    expect(await resolveStrataThreadId(memory.store, 'ana@example.com/old')).toBe(legacy)
    expect((await strata.thread('ana@example.com/old')).id).toBe(legacy)
    expect(await resolveStrataThreadId(memory.store, 'ana@example.com/new')).toBe('_.ana_40example.com_2Fnew')
    // Once the shared id holds the thread, it wins.
    await memory.store.append(
      '_.ana_40example.com_2Fboth',
      [
        {
          type: 'message',
          role: 'user',
          level: 'global',
          content: [{ type: 'text', text: 'New.' }],
        } as never,
      ],
      { expectedSeq: 0 },
    )
    await memory.store.append(
      'ana_40example.com_2Fboth',
      [
        {
          type: 'message',
          role: 'user',
          level: 'global',
          content: [{ type: 'text', text: 'Old.' }],
        } as never,
      ],
      { expectedSeq: 0 },
    )
    expect(await resolveStrataThreadId(memory.store, 'ana@example.com/both')).toBe(
      '_.ana_40example.com_2Fboth',
    )
  })

  it("an id whose old escaped form is another Mastra thread's id takes the shared id: no collision refused", async () => {
    const memory = createMemory()
    const strata = new StrataMemory({ memory })
    // 'order_2024' maps onto itself; 'order 24' escaped the old way was 'order_2024' too.
    expect(escapeThreadId('order 24')).toBe('order_2024')
    await strata.saveThread({
      thread: { id: 'order_2024', resourceId: 'shop', createdAt: new Date(), updatedAt: new Date() },
    })
    expect(await resolveStrataThreadId(memory.store, 'order 24')).toBe('_.order_2024')
    const saved = await strata.saveThread({
      thread: { id: 'order 24', resourceId: 'shop', createdAt: new Date(), updatedAt: new Date() },
    })
    expect(saved.id).toBe('order 24')
    expect((await strata.getThreadById({ threadId: 'order 24' }))?.id).toBe('order 24')
    expect((await strata.getThreadById({ threadId: 'order_2024' }))?.id).toBe('order_2024')
    expect(
      (await strata.listThreads({ filter: { resourceId: 'shop' } })).threads
        .map((thread) => thread.id)
        .sort(),
    ).toEqual(['order 24', 'order_2024'])
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
