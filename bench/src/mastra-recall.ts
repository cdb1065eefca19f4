import { createMemory, inMemoryStore } from '@strata-memory/core'
import { StrataMemory } from '@strata-memory/mastra'
import { type BenchRow, measure, rowOf, significant } from './harness.ts'

const SIZES = [10_000, 100_000]
const BASE = 1_000
const PER_PAGE = 40

/** A `StrataMemory` over a thread of `size` messages, the older half archived (as budget compaction leaves it). */
async function threadOf(size: number) {
  const store = inMemoryStore()
  const strata = new StrataMemory({
    memory: createMemory({ store, compaction: { autoTransitions: false, waterfall: false } }),
    tools: false,
  })
  const threadId = `bench/recall ${size}`
  await strata.saveThread({
    thread: { id: threadId, resourceId: 'bench', createdAt: new Date(), updatedAt: new Date() },
  })
  const thread = await strata.thread(threadId)
  await thread.append(
    Array.from({ length: size }, (_, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `Message ${index + 1} of the bench thread, about the garden and the orchard.`,
    })),
  )
  await store.archive(thread.id, { seqs: Array.from({ length: size / 2 }, (_, index) => index + 1) })
  return { strata, threadId }
}

/**
 * `recall/page`: one page (40, newest first, and one in the archived middle) of a 10k and a 100k-item
 * thread against the same page of a 1k-item thread, measured in the same run: a page reads its
 * items, not the thread, so the ratios stay near 1.
 */
export async function recallRows(progress: (message: string) => void) {
  const rows: BenchRow[] = []
  const notes: string[] = []
  const base = await threadOf(BASE)
  for (const size of SIZES) {
    const large = await threadOf(size)
    for (const [where, pageOf] of [
      ['newest', () => ({ page: 0, orderBy: { field: 'createdAt' as const, direction: 'DESC' as const } })],
      ['middle', (items: number) => ({ page: Math.floor(items / PER_PAGE / 2) - 1 })],
    ] as const) {
      const page = (subject: { strata: StrataMemory; threadId: string }, items: number) => () =>
        subject.strata.recall({ threadId: subject.threadId, perPage: PER_PAGE, ...pageOf(items) })
      const first = await page(large, size)()
      if (first.messages.length !== PER_PAGE) throw new Error(`recall gave ${first.messages.length} messages`)
      const measurement = await measure({
        strata: page(large, size),
        baseline: page(base, BASE),
        samples: 31,
        minSampleMs: 20,
        maxMs: 6_000,
      })
      rows.push(
        rowOf('recall/page', { items: size, page: where }, measurement, {
          baselineName: `the same recall page of a ${BASE.toLocaleString('en-US')}-item thread`,
        }),
      )
      notes.push(
        `recall/page (${where}, ${PER_PAGE} per page): ${significant(measurement.strata)} ms at ` +
          `${size.toLocaleString('en-US')} items vs ${significant(measurement.baseline!)} ms at ` +
          `${BASE.toLocaleString('en-US')}, ratio ${significant(measurement.ratio!)}.`,
      )
    }
    progress(`mastra: recall/page at ${size.toLocaleString('en-US')} items measured`)
  }
  return { rows, notes }
}
