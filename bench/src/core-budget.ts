import { createMemory, inMemoryStore } from '@strata-memory/core'
import { type BenchRow, measure, rowOf, significant } from './harness.ts'

const PAGES = [10, 50]
const BASELINE_NAME = 'the same thread without a budget'

/** A page of about `lines` lines, different for each index. */
const page = (index: number, lines = 250) =>
  Array.from({ length: lines }, (_, line) => `page ${index} line ${line}: vendors, prices, contacts`).join(
    '\n',
  )

/** A thread of one request and `count` fetched pages (the newest not answered yet), in `memory`. */
async function fetchedPages(count: number, budget: number | undefined) {
  const memory = createMemory({
    store: inMemoryStore(),
    ...(budget === undefined ? {} : { compaction: { budget: { inputTokens: budget } } }),
  })
  const thread = await memory.thread(`bench.core-budget.${count}.${budget}`)
  await thread.append({ role: 'user', content: 'Read every vendor page.' })
  for (let index = 0; index < count; index++) {
    await thread.append([
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: `f${index}`, toolName: 'fetch', input: { index } }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: `f${index}`, toolName: 'fetch', output: page(index) }],
      },
    ])
  }
  return thread
}

/**
 * `context()` again on an unchanged thread under a budget, against the same thread without one: a budget
 * must not make every call count its stored pages again (the newest is shown whole from the content
 * store). Row budget-unchanged: a budget large enough that nothing is cut, so both render the same
 * context; row budget-fitted: a 4,000-token budget the thread is over, so every call fits it.
 */
export async function budgetContextRows(progress: (line: string) => void) {
  const rows: BenchRow[] = []
  const notes: string[] = []
  for (const count of PAGES) {
    const withBudget = await fetchedPages(count, 200_000)
    const without = await fetchedPages(count, undefined)
    const [a, b] = [await withBudget.context(), await without.context()]
    // Memory ids are random: the contexts are the same but for them.
    const shape = (messages: unknown) => JSON.stringify(messages).replace(/mem_[\w-]+/g, 'mem')
    if (shape(a.messages) !== shape(b.messages))
      throw new Error(`core-budget: the contexts differ at ${count} pages`)
    const time = await measure({ strata: () => withBudget.context(), baseline: () => without.context() })
    rows.push(rowOf('context/budget-unchanged', { pages: count }, time, { baselineName: BASELINE_NAME }))
    notes.push(
      `context() under a budget on an unchanged thread of ${count} fetched pages: ${significant(time.strata)} ms against ` +
        `${significant(time.baseline!)} ms without a budget (${a.stats.contextTokens} tokens).`,
    )
    // A budget the thread is over: every call fits the context (cuts and leaves out old steps).
    const tight = await fetchedPages(count, 4_000)
    const fitted = await tight.context()
    const fitTime = await measure({ strata: () => tight.context(), baseline: () => without.context() })
    rows.push(rowOf('context/budget-fitted', { pages: count }, fitTime, { baselineName: BASELINE_NAME }))
    notes.push(
      `context() fitted to a 4,000-token budget on the same thread: ${significant(fitTime.strata)} ms ` +
        `(${fitted.stats.contextTokens} tokens, ${fitted.stats.omittedItems} items left out).`,
    )
    progress(`core-view: budget context at ${count} pages measured`)
  }
  return { rows, notes }
}
