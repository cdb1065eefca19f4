import { describe, expect, it, type TestContext } from 'vitest'
import type { JsonObject } from '../items'
import type { StoreLeaseMethods, StoreSlotMethods, StrataStore } from '../stores'
import { hasLeaseMethods, SLOT_METHODS } from '../stores/store-check'
import type { ConformanceSuite } from './store-conformance-content'
import { describeValue, expectStrataError, INVALID_THREAD_IDS, scribble } from './store-conformance-helpers'

/** What the slot cases need beside the shared suite parts. */
export interface SlotConformanceSuite extends ConformanceSuite {
  /**
   * Whether the store implements the slot capability (`flags.slots`). Left out, the cases run when the
   * store declares it; given, the suite also checks the store declares exactly that.
   */
  slots: boolean | undefined
}

/** A lease long enough never to lapse during a test. */
const LONG = 60_000

/** A value like the one core keeps in a slot: a log digest with its filter blocks in base64. */
const digestLike = (blocks = 2): JsonObject => ({
  version: 1,
  throughSeq: 4_096,
  counter: 'estimator',
  rawTokens: 1.5,
  scopes: [{ level: 'task', title: 'Zoë’s “task” 📄', seq: 7 }],
  filter: Array.from({ length: blocks }, (_, index) => ({
    fromSeq: index * 1_000 + 1,
    toSeq: (index + 1) * 1_000,
    keys: 1_024,
    bits: `${String.fromCharCode(65 + (index % 26)).repeat(2_730)}==`,
  })),
  none: null,
  empty: {},
  list: [],
})

/**
 * The conformance cases of the slot capability (contract `v2`, `flags.slots`): named values of a
 * thread read and written whole, apart from its state; fenced by the lease like `setState`; removed by
 * `deleteThread`; no thread data of their own.
 */
export function describeSlotConformance(suite: SlotConformanceSuite): void {
  const store = () => suite.store() as StrataStore & StoreSlotMethods
  const declared = () =>
    suite.store().flags.slots === true &&
    SLOT_METHODS.every((method) => typeof suite.store()[method] === 'function')
  const requireSlots = (context: TestContext) => {
    if (suite.slots === false || (suite.slots === undefined && !declared()))
      context.skip('the store declares no slot capability')
  }

  if (suite.slots !== undefined) {
    it(
      suite.slots ? 'declares the slot capability and has its methods' : 'declares no slot capability',
      () => {
        expect(declared()).toBe(suite.slots)
        if (!suite.slots) expect(suite.store().flags.slots ?? false).toBe(false)
      },
    )
  }

  describe('slots', () => {
    it('reads undefined for a slot never written, of a thread known or not', async (context) => {
      requireSlots(context)
      expect(await store().getSlot(suite.newThreadId(), 'log-digest')).toBeUndefined()
      const { threadId } = await suite.threadWithItems(2)
      expect(await store().getSlot(threadId, 'log-digest')).toBeUndefined()
    })

    it('stores a value whole and returns it verbatim, as fresh copies', async (context) => {
      requireSlots(context)
      const { threadId } = await suite.threadWithItems(2)
      const value = digestLike()
      await store().setSlot(threadId, 'log-digest', value)
      scribble(value)
      const read = await store().getSlot(threadId, 'log-digest')
      expect(read).toStrictEqual(digestLike())
      scribble(read)
      expect(await store().getSlot(threadId, 'log-digest')).toStrictEqual(digestLike())
    })

    it('replaces a value whole; a large one too', async (context) => {
      requireSlots(context)
      const { threadId } = await suite.threadWithItems(1)
      await store().setSlot(threadId, 'log-digest', { a: 1, b: 2 })
      await store().setSlot(threadId, 'log-digest', { c: 3 })
      expect(await store().getSlot(threadId, 'log-digest')).toStrictEqual({ c: 3 })
      // About 1 MB: the digest of ~500k archived ids and calls.
      const large = digestLike(360)
      await store().setSlot(threadId, 'log-digest', large)
      expect(await store().getSlot(threadId, 'log-digest')).toStrictEqual(large)
    })

    it('keeps slots apart from one another and from the state', async (context) => {
      requireSlots(context)
      const { threadId } = await suite.threadWithItems(1)
      await store().setState(threadId, { mode: 'idle' })
      await store().setSlot(threadId, 'log-digest', { digest: true })
      await store().setSlot(threadId, 'other-9', { other: true })
      expect(await store().getState(threadId)).toStrictEqual({ mode: 'idle' })
      await store().setState(threadId, { mode: 'busy' })
      expect(await store().getSlot(threadId, 'log-digest')).toStrictEqual({ digest: true })
      expect(await store().getSlot(threadId, 'other-9')).toStrictEqual({ other: true })
      await store().setSlot(threadId, 'other-9', undefined)
      expect(await store().getSlot(threadId, 'log-digest')).toStrictEqual({ digest: true })
      expect(await store().getState(threadId)).toStrictEqual({ mode: 'busy' })
    })

    it('removes a slot with undefined; removing one never written is no error', async (context) => {
      requireSlots(context)
      const { threadId } = await suite.threadWithItems(1)
      await store().setSlot(threadId, 'log-digest', { a: 1 })
      await store().setSlot(threadId, 'log-digest', undefined)
      expect(await store().getSlot(threadId, 'log-digest')).toBeUndefined()
      await store().setSlot(threadId, 'log-digest', undefined)
      await store().setSlot(suite.newThreadId(), 'never', undefined)
      await store().setSlot(threadId, 'log-digest', { b: 2 })
      expect(await store().getSlot(threadId, 'log-digest')).toStrictEqual({ b: 2 })
    })

    it('a slot is no thread data: a thread with only a slot is not listed and reads empty', async (context) => {
      requireSlots(context)
      const threadId = suite.newThreadId()
      await store().setSlot(threadId, 'log-digest', { a: 1 })
      expect(await store().listThreads()).not.toContain(threadId)
      expect(await store().head(threadId)).toEqual({ lastSeq: 0, activeCount: 0, archivedCount: 0 })
      expect(await store().getState(threadId)).toBeUndefined()
      expect(await store().getSlot(threadId, 'log-digest')).toStrictEqual({ a: 1 })
    })

    it('deleteThread removes the slots: a thread created again has none', async (context) => {
      requireSlots(context)
      const { threadId } = await suite.threadWithItems(2)
      await store().setSlot(threadId, 'log-digest', digestLike())
      await store().setSlot(threadId, 'other', { other: true })
      await store().deleteThread(threadId)
      expect(await store().getSlot(threadId, 'log-digest')).toBeUndefined()
      expect(await store().getSlot(threadId, 'other')).toBeUndefined()
      await store().setState(threadId, { fresh: true })
      expect(await store().getSlot(threadId, 'log-digest')).toBeUndefined()
    })

    it("refuses setSlot without the holder's lease, changing nothing; the holder's goes through", async (context) => {
      requireSlots(context)
      if (!hasLeaseMethods(suite.store())) context.skip('the store declares no lease capability')
      const leased = suite.store() as StrataStore & StoreSlotMethods & StoreLeaseMethods
      const { threadId } = await suite.threadWithItems(1)
      await leased.setSlot(threadId, 'log-digest', { before: true })
      await leased.acquireLease(threadId, { owner: 'holder', ttlMs: LONG })
      for (const options of [undefined, {}, { lease: 'intruder' }]) {
        const error = await expectStrataError(
          () => leased.setSlot(threadId, 'log-digest', { after: true }, options),
          'STRATA_THREAD_BUSY',
          JSON.stringify(options),
        )
        expect(error.details.threadId).toBe(threadId)
      }
      await expectStrataError(
        () => leased.setSlot(threadId, 'log-digest', undefined),
        'STRATA_THREAD_BUSY',
        'a removal',
      )
      // Reads are never refused.
      expect(await leased.getSlot(threadId, 'log-digest')).toStrictEqual({ before: true })
      await leased.setSlot(threadId, 'log-digest', { after: true }, { lease: 'holder' })
      expect(await leased.getSlot(threadId, 'log-digest')).toStrictEqual({ after: true })
      await expectStrataError(
        () => leased.setSlot(threadId, 'log-digest', { after: true }, { lease: 'not a token' }),
        'STRATA_INVALID_OPTIONS',
      )
    })

    it('validates its arguments, writing nothing', async (context) => {
      requireSlots(context)
      const { threadId } = await suite.threadWithItems(1)
      for (const id of INVALID_THREAD_IDS) {
        await expectStrataError(
          () => store().getSlot(id as string, 'log-digest'),
          'STRATA_INVALID_THREAD_ID',
          `getSlot, ${describeValue(id)}`,
        )
        await expectStrataError(
          () => store().setSlot(id as string, 'log-digest', { a: 1 }),
          'STRATA_INVALID_THREAD_ID',
          `setSlot, ${describeValue(id)}`,
        )
      }
      for (const name of [
        '',
        'Log',
        'log.digest',
        'a/b',
        '../x',
        '-x',
        '9x',
        'a b',
        'x'.repeat(65),
        'ü',
        42,
        undefined,
      ]) {
        for (const call of [
          () => store().getSlot(threadId, name as string),
          () => store().setSlot(threadId, name as string, { a: 1 }),
        ]) {
          await expectStrataError(call, 'STRATA_INVALID_OPTIONS', `slot name ${JSON.stringify(name)}`)
        }
      }
      for (const value of [null, [], 'text', 42, true]) {
        await expectStrataError(
          () => store().setSlot(threadId, 'log-digest', value as unknown as JsonObject),
          'STRATA_INVALID_OPTIONS',
          `value ${JSON.stringify(value)}`,
        )
      }
      await expectStrataError(
        () => store().setSlot(threadId, 'log-digest', { big: 1n } as unknown as JsonObject),
        'STRATA_NOT_SERIALIZABLE',
      )
      expect(await store().getSlot(threadId, 'log-digest')).toBeUndefined()
      expect(await store().getSlot(threadId, `a${'-'.repeat(63)}`)).toBeUndefined()
    })
  })
}
