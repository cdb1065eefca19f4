import { describe, expect, it } from 'vitest'
import type { MessagePart } from '../items'
import type { StrataStore } from '../stores'
import type { AuditEntry, AuditReport, StoreAuditMethods } from '../stores/store-audit'
import { makeContentRecord, makeMessageItem } from './fixtures'
import type { ConformanceSuite } from './store-conformance-content'
import { expectStrataError, seqsOf } from './store-conformance-helpers'

/**
 * How the audit cases damage a thread as a crash or a broken disk would, below the store's interface:
 * each is given by a store whose format can hold that damage; a case whose damage a store does not
 * give is skipped (a Redis log cannot be torn or half archived, its writes being atomic scripts).
 */
export interface AuditDamage {
  /** Leaves a torn append at the end of the thread's active log (bytes of a line, no newline). */
  tornTail?: (store: StrataStore, threadId: string) => Promise<void>
  /** Makes the item of `seq` unreadable or gone from the active log, the other items left as they are. */
  dropItem?: (store: StrataStore, threadId: string, seq: number) => Promise<void>
  /**
   * Archives `seqs` but leaves them in the active log too: an archive interrupted after its commit,
   * before the active log was rewritten.
   */
  interruptArchive?: (store: StrataStore, threadId: string, seqs: readonly number[]) => Promise<void>
}

/** What the audit cases need beside the shared suite parts. */
export interface AuditConformanceSuite extends ConformanceSuite {
  /**
   * Whether the store implements the audit capability; left out, the cases run when the store has
   * `audit()` and are skipped when it has not.
   */
  audit: boolean | undefined
  damage: AuditDamage
}

const codes = (entries: readonly AuditEntry[]) => entries.map((entry) => entry.code)

/**
 * The conformance cases of the audit (contract `v2`, `flags.audit`): a clean thread is clean, an audit
 * is read-only, item-level problems (an orphaned tool call, missing content) are found by every store,
 * and the damage a store's format can hold (a torn tail, a seq gap, an interrupted archive) is found
 * and, where repairable, repaired.
 */
export function describeAuditConformance(suite: AuditConformanceSuite): void {
  const store = () => suite.store() as StrataStore & StoreAuditMethods
  const audit = (threadId: string, repair = false): Promise<AuditReport> =>
    store().audit(threadId, { repair })

  const declared = () => typeof suite.store().audit === 'function'
  /** Skips a case of a store without the audit, or without the damage the case needs. */
  const needs = (context: { skip(note?: string): void }, damage?: keyof AuditDamage) => {
    if (suite.audit === false || (suite.audit === undefined && !declared()))
      context.skip('the store has no audit capability')
    if (damage !== undefined && suite.damage[damage] === undefined)
      context.skip(`the store's format cannot hold this damage (no auditDamage.${damage})`)
  }

  if (suite.audit !== undefined) {
    it(suite.audit ? 'declares the audit capability and has audit()' : 'declares no audit capability', () => {
      expect(declared()).toBe(suite.audit)
      expect(suite.store().flags.audit === true).toBe(suite.audit)
    })
  }

  describe('audit', () => {
    it('reports a clean thread, and an unknown one, as clean; rejects bad options', async (context) => {
      needs(context)
      const { threadId, items } = await suite.threadWithItems(6)
      await store().archive(threadId, { seqs: [1, 2, 3] })
      const seen: [number, string][] = []
      const report = await store().audit(threadId, {
        onItem: (item, source) => seen.push([item.seq, source]),
      })
      expect(report).toEqual({ threadId, items: 6, entries: [], repaired: [] })
      expect(seen.sort((left, right) => left[0] - right[0])).toEqual(
        items.map((item) => [item.seq, item.seq <= 3 ? 'archive' : 'active']),
      )
      // The items' JSON alone, as serialising what the store reads gives it.
      const json: [number, string, string][] = []
      const jsonReport = await store().audit(threadId, {
        onItemJson: (seq, source, text) => json.push([seq, source, text]),
      })
      expect(jsonReport).toEqual(report)
      const stored = [...(await store().readArchive(threadId)), ...(await store().read(threadId))]
      expect(json.sort((left, right) => left[0] - right[0])).toEqual(
        stored.map((item) => [item.seq, item.seq <= 3 ? 'archive' : 'active', JSON.stringify(item)]),
      )
      expect(await audit(suite.newThreadId())).toEqual(
        expect.objectContaining({ items: 0, entries: [], repaired: [] }),
      )
      await expectStrataError(
        () => store().audit(threadId, { repair: 'yes' as unknown as boolean }),
        'STRATA_INVALID_OPTIONS',
      )
      await expectStrataError(
        () => store().audit(threadId, { checks: 'some' as 'all' }),
        'STRATA_INVALID_OPTIONS',
      )
      await expectStrataError(() => store().audit('bad/id'), 'STRATA_INVALID_THREAD_ID')
    })

    it('finds an orphaned tool call and a result that answers no call', async (context) => {
      needs(context)
      const threadId = suite.newThreadId()
      const call = { type: 'tool-call', toolCallId: 'call-lost', toolName: 'lookup', input: { id: 7 } }
      const result = { type: 'tool-result', toolCallId: 'call-none', toolName: 'lookup', output: 'ok' }
      await store().append(
        threadId,
        [
          makeMessageItem({ text: 'Look up order 7.' }),
          makeMessageItem({ role: 'assistant', content: [call] as MessagePart[] }),
          makeMessageItem({ role: 'tool', content: [result] as MessagePart[] }),
          makeMessageItem({ text: 'Hello?' }),
        ],
        { expectedSeq: 0 },
      )
      const report = await audit(threadId)
      expect(report.items).toBe(4)
      expect(report.entries).toEqual([
        expect.objectContaining({
          code: 'orphan-tool-call',
          threadId,
          seq: 2,
          repairable: false,
          message: 'tool call call-lost (lookup) at seq 2 has no result.',
        }),
        expect.objectContaining({ code: 'orphan-tool-result', seq: 3, repairable: false }),
      ])
      // Only what reading the format finds: the checks across items are left out, the items counted.
      expect(await store().audit(threadId, { checks: 'format' })).toEqual({
        threadId,
        items: 4,
        entries: [],
        repaired: [],
      })
      // Repair mends only what the store can: these stay, and nothing changed.
      const repaired = await audit(threadId, true)
      expect(repaired.repaired).toEqual([])
      expect(codes(repaired.entries)).toEqual(['orphan-tool-call', 'orphan-tool-result'])
      expect(seqsOf(await store().read(threadId))).toEqual([1, 2, 3, 4])
    })

    it.skipIf(!suite.content)('finds cited content that no thread holds', async (context) => {
      needs(context)
      const threadId = suite.newThreadId()
      const other = suite.newThreadId()
      const cite = (id: string) => ({ type: 'text', text: `[${id}]`, meta: { strataContent: { id } } })
      await store().putContent?.(other, makeContentRecord({ id: 'mem-shared' }))
      // Held by the thread itself, under an id whose file name is escaped.
      await store().putContent?.(threadId, makeContentRecord({ id: 'mem-own/é 1' }))
      await store().append(
        threadId,
        [
          makeMessageItem({
            content: [cite('mem-shared'), cite('mem-own/é 1'), cite('mem-gone')] as MessagePart[],
          }),
        ],
        { expectedSeq: 0 },
      )
      expect((await audit(threadId)).entries).toEqual([
        expect.objectContaining({
          code: 'missing-content',
          seq: 1,
          message: 'content mem-gone, cited at seq 1, is not in the content store.',
        }),
      ])
    })

    it('finds a seq gap: an item in neither the active log nor the archive', async (context) => {
      needs(context, 'dropItem')
      const { threadId } = await suite.threadWithItems(6)
      await store().archive(threadId, { seqs: [1, 2] })
      await suite.damage.dropItem!(store(), threadId, 4)
      const report = await audit(threadId)
      const gap = report.entries.filter((entry) => entry.code === 'seq-gap')
      expect(gap).toEqual([
        expect.objectContaining({
          seq: 4,
          repairable: false,
          message: 'seq 4 is in neither the active log nor the archive.',
        }),
      ])
      expect(report.items).toBe(5)
    })

    it('finds a torn tail without touching it; repair moves it aside, and the items stay', async (context) => {
      needs(context, 'tornTail')
      const { threadId, items } = await suite.threadWithItems(3)
      await suite.damage.tornTail!(store(), threadId)
      const first = await audit(threadId)
      expect(first.entries).toEqual([expect.objectContaining({ code: 'torn-tail', repairable: true })])
      expect(first.items).toBe(3)
      // Read-only: a second audit finds the same; one of the format only too (a torn tail is the format's).
      expect((await audit(threadId)).entries).toEqual(first.entries)
      expect((await store().audit(threadId, { checks: 'format' })).entries).toEqual(first.entries)
      const repaired = await audit(threadId, true)
      expect(codes(repaired.repaired)).toEqual(['torn-tail'])
      expect(repaired.entries).toEqual([])
      expect((await audit(threadId)).entries).toEqual([])
      expect(await store().read(threadId)).toStrictEqual(items)
    })

    it('finds an interrupted archive; repair finishes it (the items stay archived)', async (context) => {
      needs(context, 'interruptArchive')
      const { threadId } = await suite.threadWithItems(5)
      await suite.damage.interruptArchive!(store(), threadId, [1, 2])
      const first = await audit(threadId)
      expect(first.entries).toEqual([
        expect.objectContaining({
          code: 'archive-pending',
          seq: 1,
          repairable: true,
          message: '2 items (seqs 1–2) are in both the active log and the archive.',
        }),
      ])
      expect(first.items).toBe(5)
      const repaired = await audit(threadId, true)
      expect(codes(repaired.repaired)).toEqual(['archive-pending'])
      expect(repaired.entries).toEqual([])
      expect(seqsOf(await store().readArchive(threadId))).toEqual([1, 2])
      expect(seqsOf(await store().read(threadId))).toEqual([3, 4, 5])
    })
  })
}
