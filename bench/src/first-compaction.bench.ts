import { createMemory, inMemoryStore, type StrataStore, type UnsequencedItem } from '@strata-memory/core'
import { type Benchmark, type BenchRow, rowOf } from './harness.ts'
import { summarizerItems } from './summarizer-items.ts'

/** Thread sizes; `FIRST_COMPACTION_SIZES=100000,300000,1000000` for 1M. */
const SIZES = (process.env.FIRST_COMPACTION_SIZES ?? '100000,300000').split(',').map(Number)
/** The one-shot baseline (every old turn in one summary and one archive) runs up to this size. */
const ONE_SHOT_UP_TO = Number(process.env.FIRST_COMPACTION_ONE_SHOT_UP_TO ?? 100_000)
const INPUT_TOKENS = 8_000

/** Stores a never-compacted thread of `size` items straight into the store, in batches. */
async function grownThread(store: StrataStore, threadId: string, size: number) {
  const items = summarizerItems(size)
  for (let from = 0; from < items.length; from += 10_000) {
    const batch = items.slice(from, from + 10_000).map(({ seq: _, ...item }) => item as UnsequencedItem)
    await store.append(threadId, batch, { expectedSeq: from })
  }
}

/**
 * The first budget compaction of a long thread never compacted, brought under an 8k budget: the
 * background work from the write that asks for it to the end (`thread.settled()`), wall and CPU time.
 * Baseline in the same run: the one-shot compaction (one chunk) of the same thread, up to 100k items;
 * there also a run with an append and a `context()` every 500 ms meanwhile (their worst wait, and
 * whether any context was over the budget). In-memory store: core's own work, not a store's.
 */
const benchmark: Benchmark = {
  name: 'first-compaction',
  description: 'first compaction of a long never-compacted thread under an 8k budget (target: 1M ≤ 60 s)',
  async run({ progress }) {
    const rows: BenchRow[] = []
    const notes: string[] = []
    /** One first compaction; with `everyMs`, an append and a `context()` that often meanwhile. */
    const run = async (size: number, chunkItems: number, everyMs?: number) => {
      const store = inMemoryStore()
      await grownThread(store, 'long', size)
      const memory = createMemory({
        store,
        compaction: { budget: { inputTokens: INPUT_TOKENS, chunkItems } },
      })
      const thread = await memory.thread('long')
      let steps = 0
      memory.on('compaction-end', () => steps++)
      const started = performance.now()
      const cpuBefore = process.cpuUsage()
      await thread.append({ role: 'user', content: 'One more question about order PO-1234.' })
      let done = false
      const settled = thread.settled().then(() => {
        done = true
      })
      let worstMs = 0
      let over = 0
      let contexts = 0
      while (!done && everyMs !== undefined) {
        await new Promise((resolve) => setTimeout(resolve, everyMs))
        if (done) break
        const asked = performance.now()
        await thread.append([
          { role: 'user', content: `Meanwhile: status of PO-${contexts}?` },
          { role: 'assistant', content: `PO-${contexts} is on its way.` },
        ])
        const { stats } = await thread.context()
        worstMs = Math.max(worstMs, performance.now() - asked)
        if (stats.contextTokens > INPUT_TOKENS) over++
        contexts++
      }
      await settled
      const ms = performance.now() - started
      const cpu = process.cpuUsage(cpuBefore)
      const cpuMs = (cpu.user + cpu.system) / 1_000
      const active = (await thread.items()).length
      await memory.close()
      return { ms, cpuMs, steps, worstMs, over, contexts, active }
    }
    for (const size of SIZES) {
      const chunked = await run(size, 4_096)
      progress(
        `first-compaction: ${size} items chunked in ${(chunked.ms / 1000).toFixed(1)} s, ${chunked.steps} steps`,
      )
      let baseline: number | null = null
      let baselineCpu: number | null = null
      if (size <= ONE_SHOT_UP_TO) {
        const oneShot = await run(size, Number.MAX_SAFE_INTEGER)
        baseline = oneShot.ms
        baselineCpu = oneShot.cpuMs
        progress(`first-compaction: ${size} items one-shot in ${(oneShot.ms / 1000).toFixed(1)} s`)
        // With requests meanwhile: how long one waits, and whether a context is ever over the budget.
        const busy = await run(size, 4_096, 500)
        notes.push(
          `${size} items chunked with an append + context() every 500 ms meanwhile: ${busy.contexts} requests, ` +
            `worst wait ${busy.worstMs.toFixed(0)} ms, ${busy.over} contexts over the budget, done in ${(busy.ms / 1000).toFixed(1)} s.`,
        )
      }
      rows.push(
        rowOf(
          'first compaction, chunked (wall)',
          { items: size, steps: chunked.steps },
          { strata: chunked.ms, baseline },
          { baselineName: 'one-shot compaction' },
        ),
        rowOf(
          'first compaction, chunked (CPU)',
          { items: size, steps: chunked.steps },
          { strata: chunked.cpuMs, baseline: baselineCpu },
          { baselineName: 'one-shot compaction' },
        ),
      )
      notes.push(
        `${size} items chunked: ${chunked.steps} steps, ${chunked.active} items active after; CPU ` +
          `${((chunked.cpuMs / size) * 1_000).toFixed(1)} µs an item (1M at this rate: ${((chunked.cpuMs / size) * 1_000).toFixed(0)} s of CPU).`,
      )
    }
    return { rows, notes }
  },
}

export default benchmark
