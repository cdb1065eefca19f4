import type { Item } from '../items'
import type { SummarizeOptions, Summarizer } from '../summarizers'

/**
 * For core's own tests: a summarizer that answers only once the test calls `open()`, so background
 * compaction stays pending until then.
 */
export function gatedSummarizer(): { summarizer: Summarizer; open: () => void } {
  let open: () => void = () => {}
  const gate = new Promise<void>((resolve) => {
    open = resolve
  })
  const summarizer: Summarizer = {
    name: 'gated',
    async summarize(items: readonly Item[], options: SummarizeOptions) {
      await gate
      return { summary: `${options.tier} ${items[0]?.seq}-${items.at(-1)?.seq}`, facts: [] }
    },
  }
  return { summarizer, open: () => open() }
}
