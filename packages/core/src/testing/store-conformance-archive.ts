import { describe, expect, it } from 'vitest'
import { makeEveryItemType, makeItems, withSeqs } from './fixtures'
import type { ConformanceSuite } from './store-conformance-content'
import { expectStrataError, scribble, seqsOf } from './store-conformance-helpers'

/** The conformance cases of `archive` (moves, seq checks, copies) and of `readArchive`'s ranges. */
export function describeArchiveConformance(suite: ConformanceSuite): void {
  describe('archive', () => {
    it('moves items to the archive, item for item, and deletes nothing', async () => {
      const threadId = suite.newThreadId()
      const input = makeEveryItemType()
      const expected = withSeqs(input)
      await suite.store().append(threadId, input, { expectedSeq: 0 })
      expect(await suite.store().archive(threadId, { seqs: [1, 2, 3] })).toBe(3)
      expect(await suite.store().read(threadId)).toStrictEqual(expected.slice(3))
      expect(await suite.store().readArchive(threadId)).toStrictEqual(expected.slice(0, 3))
      expect(await suite.store().head(threadId)).toEqual({
        lastSeq: expected.length,
        activeCount: expected.length - 3,
        archivedCount: 3,
      })
    })

    it('never lowers lastSeq: the next append continues the seq', async () => {
      const { threadId } = await suite.threadWithItems(5)
      expect(await suite.store().archive(threadId, { seqs: [4, 5] })).toBe(2)
      expect(await suite.store().head(threadId)).toEqual({ lastSeq: 5, activeCount: 3, archivedCount: 2 })
      await expectStrataError(
        () => suite.store().append(threadId, makeItems(1), { expectedSeq: 3 }),
        'STRATA_SEQ_CONFLICT',
      )
      const [next] = await suite.store().append(threadId, makeItems(1), { expectedSeq: 5 })
      expect(next?.seq).toBe(6)
      expect(seqsOf(await suite.store().read(threadId))).toEqual([1, 2, 3, 6])
    })

    it('can archive every item and keep appending', async () => {
      const { threadId, items } = await suite.threadWithItems(4)
      expect(await suite.store().archive(threadId, { seqs: [1, 2, 3, 4] })).toBe(4)
      expect(await suite.store().read(threadId)).toEqual([])
      expect(await suite.store().readArchive(threadId)).toStrictEqual(items)
      expect(await suite.store().head(threadId)).toEqual({ lastSeq: 4, activeCount: 0, archivedCount: 4 })
      const added = makeItems(2)
      expect(await suite.store().append(threadId, added, { expectedSeq: 4 })).toStrictEqual(
        withSeqs(added, 4),
      )
      expect(await suite.store().head(threadId)).toEqual({ lastSeq: 6, activeCount: 2, archivedCount: 4 })
    })

    it('ignores unknown, already archived and repeated seqs', async () => {
      const { threadId, items } = await suite.threadWithItems(5)
      expect(await suite.store().archive(threadId, { seqs: [2, 2, 99, 0, -1, 2.5] })).toBe(1)
      expect(await suite.store().archive(threadId, { seqs: [2, 3] })).toBe(1)
      expect(await suite.store().archive(threadId, { seqs: [2, 3, 6] })).toBe(0)
      expect(await suite.store().archive(threadId, { seqs: [] })).toBe(0)
      expect(await suite.store().readArchive(threadId)).toStrictEqual(items.slice(1, 3))
      expect(await suite.store().head(threadId)).toEqual({ lastSeq: 5, activeCount: 3, archivedCount: 2 })
    })

    it('keeps the archive in seq order across batches in any order', async () => {
      const { threadId, items } = await suite.threadWithItems(8)
      expect(await suite.store().archive(threadId, { seqs: [6, 2] })).toBe(2)
      expect(await suite.store().archive(threadId, { seqs: [8, 1, 4] })).toBe(3)
      expect(await suite.store().readArchive(threadId)).toStrictEqual(
        [1, 2, 4, 6, 8].map((seq) => items[seq - 1]),
      )
      expect(await suite.store().read(threadId)).toStrictEqual([3, 5, 7].map((seq) => items[seq - 1]))
    })

    it('moves nothing when expectedSeq is stale, and archives when it matches', async () => {
      const { threadId, items } = await suite.threadWithItems(4)
      const error = await expectStrataError(
        () => suite.store().archive(threadId, { seqs: [1, 2], expectedSeq: 3 }),
        'STRATA_SEQ_CONFLICT',
      )
      expect(error.details).toMatchObject({ threadId, expectedSeq: 3, actualSeq: 4 })
      expect(await suite.store().read(threadId)).toStrictEqual(items)
      expect(await suite.store().readArchive(threadId)).toEqual([])
      expect(await suite.store().head(threadId)).toEqual({ lastSeq: 4, activeCount: 4, archivedCount: 0 })
      expect(await suite.store().archive(threadId, { seqs: [1, 2], expectedSeq: 4 })).toBe(2)
      expect(await suite.store().readArchive(threadId)).toStrictEqual(items.slice(0, 2))
    })

    it('returns 0 for an unknown thread and creates nothing', async () => {
      const threadId = suite.newThreadId()
      expect(await suite.store().archive(threadId, { seqs: [1, 2] })).toBe(0)
      expect(await suite.store().head(threadId)).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
      expect(await suite.store().listThreads()).not.toContain(threadId)
    })

    it('returns copies: mutating archived items read back changes nothing stored', async () => {
      const { threadId, items } = await suite.threadWithItems(3)
      await suite.store().archive(threadId, { seqs: [1, 2, 3] })
      scribble(await suite.store().readArchive(threadId))
      expect(await suite.store().readArchive(threadId)).toStrictEqual(items)
    })
  })

  describe('readArchive', () => {
    it('returns [] when nothing is archived', async () => {
      expect(await suite.store().readArchive(suite.newThreadId())).toEqual([])
      const { threadId } = await suite.threadWithItems(3)
      expect(await suite.store().readArchive(threadId)).toEqual([])
    })

    it('reads inclusive seq ranges with a limit, oldest first', async () => {
      const { threadId, items } = await suite.threadWithItems(10)
      await suite.store().archive(threadId, { seqs: [1, 3, 5, 7, 9] })
      expect(await suite.store().readArchive(threadId, { fromSeq: 2, toSeq: 7 })).toStrictEqual([
        items[2],
        items[4],
        items[6],
      ])
      expect(seqsOf(await suite.store().readArchive(threadId, { limit: 2 }))).toEqual([1, 3])
      expect(seqsOf(await suite.store().readArchive(threadId, { fromSeq: 4, limit: 1 }))).toEqual([5])
      expect(seqsOf(await suite.store().readArchive(threadId, { toSeq: 5 }))).toEqual([1, 3, 5])
      expect(seqsOf(await suite.store().readArchive(threadId, { fromSeq: 9, toSeq: 9 }))).toEqual([9])
      expect(await suite.store().readArchive(threadId, { fromSeq: 10 })).toEqual([])
      expect(await suite.store().readArchive(threadId, { toSeq: 0 })).toEqual([])
      expect(await suite.store().readArchive(threadId, { fromSeq: 8, toSeq: 2 })).toEqual([])
      expect(await suite.store().readArchive(threadId, { limit: 0 })).toEqual([])
    })
  })
}
