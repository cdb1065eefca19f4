import { createMemory, inMemoryStore } from '@strata-memory/core'
import { type AgentThreadLevel, LEVELS } from './agent-thread.ts'
import { budgetContextRows } from './core-budget.ts'
import { openRows } from './core-open.ts'
import { fairiesView } from './fairies-view.ts'
import { agentThreadItems, fillThread } from './fixtures/large-thread.ts'
import { type Benchmark, type BenchRow, measure, rowOf, significant } from './harness.ts'

const SIZES = [1_000, 10_000, 100_000]
const BASELINE_NAME = 'fairies backward scan with unshift'

const seqs = (items: readonly { seq: number }[]) => items.map((item) => item.seq).join(',')

/**
 * `thread.view(level)` and `thread.context({ level })` on threads of 1k, 10k and 100k items written
 * through the public API, against the fairies scan on the same items. Strata's figures include what a
 * caller pays: the thread's operation queue and the store read of new items; the baseline scans a plain
 * array. For context the baseline is still the scan alone: the rendering the fairies code does has no
 * published counterpart.
 */
const benchmark: Benchmark = {
  name: 'core-view',
  description:
    'thread.view and thread.context per level at 1k, 10k and 100k items, against the fairies scan; cold open of file and Redis threads against the bare read and parse of their log; context under a budget on an unchanged thread against the same without one',
  async run({ progress }) {
    const rows: BenchRow[] = []
    const notes: string[] = []
    const taskView = new Map<number, number>()
    const builds: string[] = []
    for (const size of SIZES) {
      const started = performance.now()
      // The shared fixture: written once through the API, then filled into a store by batch append.
      const store = inMemoryStore()
      await fillThread(store, `bench.core-view.${size}`, await agentThreadItems(size))
      const thread = await createMemory({ store, levels: LEVELS }).thread(`bench.core-view.${size}`)
      const items = await thread.items()
      if (items.length !== size) throw new Error(`built ${items.length} items, expected ${size}`)
      const buildSeconds = ((performance.now() - started) / 1000).toFixed(2)
      builds.push(`${size.toLocaleString('en-US')} items in ${buildSeconds} s`)
      progress(`core-view: built ${size.toLocaleString('en-US')} items in ${buildSeconds} s`)

      const visible: string[] = []
      for (const level of LEVELS) {
        const view = await thread.view(level)
        // The comparison is only fair if both compute the same view.
        if (seqs(view) !== seqs(fairiesView(items, level, LEVELS))) {
          throw new Error(`the fairies scan and thread.view disagree at ${size} items, level ${level}`)
        }
        visible.push(`${level} ${view.length}`)
        const baseline = () => fairiesView<AgentThreadLevel>(items, level, LEVELS)
        const params = { items: size, level }
        const viewTime = await measure({ strata: () => thread.view(level), baseline })
        rows.push(rowOf(`view/${level}`, params, viewTime, { baselineName: BASELINE_NAME }))
        const contextTime = await measure({ strata: () => thread.context({ level }), baseline })
        rows.push(rowOf(`context/${level}`, params, contextTime, { baselineName: BASELINE_NAME }))
        if (level === 'task') taskView.set(size, viewTime.strata)
        progress(`core-view: ${size.toLocaleString('en-US')} items, ${level} measured`)
      }
      notes.push(`Items in view at ${size.toLocaleString('en-US')}: ${visible.join(', ')}.`)
    }
    notes.push(
      `Threads built (once through thread.append/enter/exit, then by batch append): ${builds.join(', ')}.`,
    )
    // Cold open: a fresh memory opens a thread of each size from the file and Redis stores.
    const open = await openRows(SIZES, progress)
    rows.push(...open.rows)
    notes.push(...open.notes)
    // A budget must not make an unchanged thread's context cost more (its pages are counted once).
    const budget = await budgetContextRows(progress)
    rows.push(...budget.rows)
    notes.push(...budget.notes)
    const small = taskView.get(SIZES[0]!)!
    const large = taskView.get(SIZES.at(-1)!)!
    notes.push(
      `Task view, ${SIZES.at(-1)!.toLocaleString('en-US')} vs ${SIZES[0]!.toLocaleString('en-US')} items: ` +
        `${significant(large)} ms vs ${significant(small)} ms, ratio ${significant(large / small)} ` +
        '(flat: the task view visits only the trailing run).',
    )
    return { rows, notes }
  },
}

export default benchmark
