import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { MAX_JSON_SIZE, type UnsequencedItem } from '../items'
import { makeEveryItemType, makeItems, makeMessageItem, withSeqs } from './fixtures'
import type { ConformanceSuite } from './store-conformance-content'
import { deepCopy, expectStrataError, scribble, seqsOf } from './store-conformance-helpers'

/** The conformance cases of `append` (seq checks, batches, copies, concurrent writers) and of round trips. */
export function describeAppendConformance(suite: ConformanceSuite): void {
  describe('append', () => {
    it('assigns seqs 1..n on a new thread and continues from the last seq', async () => {
      const threadId = suite.newThreadId()
      const first = makeItems(3)
      expect(await suite.store().append(threadId, first, { expectedSeq: 0 })).toStrictEqual(withSeqs(first))
      const second = makeItems(2, { firstTurn: 3 })
      expect(await suite.store().append(threadId, second, { expectedSeq: 3 })).toStrictEqual(
        withSeqs(second, 3),
      )
      expect(seqsOf(await suite.store().read(threadId))).toEqual([1, 2, 3, 4, 5])
      expect(await suite.store().head(threadId)).toEqual({ lastSeq: 5, activeCount: 5, archivedCount: 0 })
    })

    it('assigns its own seq even when an input item carries one', async () => {
      const threadId = suite.newThreadId()
      const item = { ...makeMessageItem(), seq: 99 } as UnsequencedItem
      const [stored] = await suite.store().append(threadId, [item], { expectedSeq: 0 })
      expect(stored?.seq).toBe(1)
      expect(seqsOf(await suite.store().read(threadId))).toEqual([1])
    })

    it('returns [] and changes nothing when given no items', async () => {
      const { threadId } = await suite.threadWithItems(2)
      expect(await suite.store().append(threadId, [], { expectedSeq: 2 })).toEqual([])
      expect(await suite.store().head(threadId)).toEqual({ lastSeq: 2, activeCount: 2, archivedCount: 0 })
    })

    it('returns copies: mutating the returned items changes nothing stored', async () => {
      const threadId = suite.newThreadId()
      const input = makeEveryItemType()
      const stored = await suite.store().append(threadId, input, { expectedSeq: 0 })
      scribble(stored)
      expect(await suite.store().read(threadId)).toStrictEqual(withSeqs(input))
      const read = await suite.store().read(threadId)
      scribble(read)
      expect(await suite.store().read(threadId)).toStrictEqual(withSeqs(input))
    })

    it('stores copies: mutating the input after append changes nothing stored', async () => {
      const threadId = suite.newThreadId()
      const input = makeEveryItemType()
      const expected = withSeqs(deepCopy(input))
      await suite.store().append(threadId, input, { expectedSeq: 0 })
      scribble(input)
      expect(await suite.store().read(threadId)).toStrictEqual(expected)
    })

    it('rejects a stale or future expectedSeq with STRATA_SEQ_CONFLICT and writes nothing', async () => {
      const { threadId, items } = await suite.threadWithItems(3)
      for (const expectedSeq of [0, 2, 4]) {
        const error = await expectStrataError(
          () => suite.store().append(threadId, makeItems(2), { expectedSeq }),
          'STRATA_SEQ_CONFLICT',
        )
        expect(error.details).toMatchObject({ threadId, expectedSeq, actualSeq: 3 })
        expect(error.message).toMatch(/retry/i)
      }
      expect(await suite.store().read(threadId)).toStrictEqual(items)
      expect(await suite.store().head(threadId)).toEqual({ lastSeq: 3, activeCount: 3, archivedCount: 0 })
    })

    it('rejects an expectedSeq other than 0 on a new thread and creates nothing', async () => {
      const threadId = suite.newThreadId()
      const error = await expectStrataError(
        () => suite.store().append(threadId, makeItems(1), { expectedSeq: 1 }),
        'STRATA_SEQ_CONFLICT',
      )
      expect(error.details).toMatchObject({ threadId, expectedSeq: 1, actualSeq: 0 })
      expect(await suite.store().head(threadId)).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
      expect(await suite.store().read(threadId)).toEqual([])
      expect(await suite.store().listThreads()).not.toContain(threadId)
    })

    it('lets exactly one of two concurrent appends with the same expectedSeq win', async () => {
      const threadId = suite.newThreadId()
      const left = makeItems(2)
      const right = makeItems(3)
      const results = await Promise.allSettled([
        suite.store().append(threadId, left, { expectedSeq: 0 }),
        suite.store().append(threadId, right, { expectedSeq: 0 }),
      ])
      const winners = results.filter((result) => result.status === 'fulfilled')
      const losers = results.filter((result) => result.status === 'rejected')
      expect(winners).toHaveLength(1)
      expect(losers).toHaveLength(1)
      expect(StrataError.isInstance(losers[0]?.reason, 'STRATA_SEQ_CONFLICT')).toBe(true)
      const winner = results[0]?.status === 'fulfilled' ? left : right
      expect(winners[0]?.value).toStrictEqual(withSeqs(winner))
      expect(await suite.store().read(threadId)).toStrictEqual(withSeqs(winner))
      expect(await suite.store().head(threadId)).toEqual({
        lastSeq: winner.length,
        activeCount: winner.length,
        archivedCount: 0,
      })
    })

    it('lets exactly one of many concurrent appends to an existing thread win', async () => {
      const { threadId, items } = await suite.threadWithItems(2)
      const batches = Array.from({ length: 8 }, () => makeItems(2))
      const results = await Promise.allSettled(
        batches.map((batch) => suite.store().append(threadId, batch, { expectedSeq: 2 })),
      )
      const winnerIndex = results.findIndex((result) => result.status === 'fulfilled')
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
      for (const result of results) {
        if (result.status === 'rejected') {
          expect(StrataError.isInstance(result.reason, 'STRATA_SEQ_CONFLICT')).toBe(true)
        }
      }
      expect(await suite.store().read(threadId)).toStrictEqual([
        ...items,
        ...withSeqs(batches[winnerIndex]!, 2),
      ])
    })

    it('loses and duplicates nothing when concurrent writers retry after conflicts', async () => {
      const threadId = suite.newThreadId()
      const writers = ['a', 'b', 'c', 'd', 'e']
      const perWriter = 3
      const write = async (writer: string): Promise<void> => {
        for (let index = 0; index < perWriter; index += 1) {
          const item = makeMessageItem({ text: `${writer} ${index}`, meta: { writer, index } })
          for (let attempt = 1; ; attempt += 1) {
            const { lastSeq } = await suite.store().head(threadId)
            try {
              await suite.store().append(threadId, [item], { expectedSeq: lastSeq })
              break
            } catch (error) {
              if (!StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT') || attempt >= 100) throw error
            }
          }
        }
      }
      await Promise.all(writers.map(write))
      const stored = await suite.store().read(threadId)
      expect(seqsOf(stored)).toEqual(
        Array.from({ length: writers.length * perWriter }, (_, index) => index + 1),
      )
      expect(new Set(stored.map((item) => item.id)).size).toBe(stored.length)
      for (const writer of writers) {
        const mine = stored.filter((item) => item.meta?.writer === writer).map((item) => item.meta?.index)
        expect(mine).toEqual([0, 1, 2])
      }
    })

    it('keeps seqs per thread', async () => {
      const first = await suite.threadWithItems(3)
      const second = await suite.threadWithItems(2)
      expect(seqsOf(first.items)).toEqual([1, 2, 3])
      expect(seqsOf(second.items)).toEqual([1, 2])
      expect(await suite.store().read(first.threadId)).toStrictEqual(first.items)
      expect(await suite.store().read(second.threadId)).toStrictEqual(second.items)
    })
  })

  describe('what cannot be stored', () => {
    it('refuses an item JSON cannot hold (STRATA_NOT_SERIALIZABLE), naming it, and writes nothing', async () => {
      const { threadId, items } = await suite.threadWithItems(2)
      const bad = { ...makeMessageItem(), meta: { count: 10n } } as unknown as UnsequencedItem
      const error = await expectStrataError(
        () => suite.store().append(threadId, [makeMessageItem(), bad], { expectedSeq: 2 }),
        'STRATA_NOT_SERIALIZABLE',
      )
      expect(error.details?.path).toBe('items[1].meta.count')
      expect(await suite.store().read(threadId)).toStrictEqual(items)
    })

    it('refuses a list with a hole in it (no item there) and writes nothing', async () => {
      const { threadId, items } = await suite.threadWithItems(1)
      const holed = [makeMessageItem(), makeMessageItem()]
      delete (holed as unknown[])[0]
      const error = await expectStrataError(
        () => suite.store().append(threadId, holed, { expectedSeq: 1 }),
        'STRATA_INVALID_OPTIONS',
      )
      expect(error.details?.index).toBe(0)
      expect(await suite.store().read(threadId)).toStrictEqual(items)
    })

    it(`refuses an item over MAX_JSON_SIZE as JSON (STRATA_INVALID_MESSAGE) and writes nothing`, async () => {
      const { threadId, items } = await suite.threadWithItems(1)
      const huge = makeMessageItem({ text: 'x'.repeat(MAX_JSON_SIZE) })
      const error = await expectStrataError(
        () => suite.store().append(threadId, [makeMessageItem(), huge], { expectedSeq: 1 }),
        'STRATA_INVALID_MESSAGE',
      )
      expect(error.details?.reason).toBe('size')
      expect(await suite.store().read(threadId)).toStrictEqual(items)
    })

    it('stores an item with undefined properties as JSON does: without them', async () => {
      const threadId = suite.newThreadId()
      const item = { ...makeMessageItem(), meta: { kept: 1, dropped: undefined }, extra: undefined }
      const [stored] = await suite.store().append(threadId, [item as unknown as UnsequencedItem], {
        expectedSeq: 0,
      })
      const expected = { ...JSON.parse(JSON.stringify(item)), seq: 1 }
      expect(stored).toStrictEqual(expected)
      expect(await suite.store().read(threadId)).toStrictEqual([expected])
    })
  })

  describe('round trip', () => {
    it('keeps every item type and message part verbatim', async () => {
      const threadId = suite.newThreadId()
      const input = makeEveryItemType()
      const expected = withSeqs(input)
      expect(await suite.store().append(threadId, input, { expectedSeq: 0 })).toStrictEqual(expected)
      expect(await suite.store().read(threadId)).toStrictEqual(expected)
      expect(JSON.stringify(await suite.store().read(threadId))).toBe(JSON.stringify(expected))
    })

    it('keeps large items verbatim', async () => {
      const threadId = suite.newThreadId()
      const rows = Array.from({ length: 2_000 }, (_, index) => ({
        id: index,
        name: `row ${index} ✓`,
        ok: index % 2 === 0,
      }))
      const input = [
        makeMessageItem({ text: `${'Lorem ipsum dolor sit amet — 日本語 '.repeat(8_000)}end` }),
        makeMessageItem({
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'call_big', toolName: 'query', output: { rows } }],
        }),
      ]
      await suite.store().append(threadId, input, { expectedSeq: 0 })
      expect(await suite.store().read(threadId)).toStrictEqual(withSeqs(input))
    })
  })
}
