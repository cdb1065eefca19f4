import { createMemory, inMemoryStore, type StrataStore } from '@strata-memory/core'
import { memoryTools } from '@strata-memory/core/tools'
import { LEVELS } from './agent-thread.ts'
import { agentThreadItems, fillThread } from './fixtures/large-thread.ts'
import { type Benchmark, type BenchRow, measure, rowOf } from './harness.ts'
import { allWordsQuery } from './memory-query-baseline.ts'

const SIZES = [1_000, 10_000]
const BASELINE_NAME = 'the all-words, unranked memory_query of before'
/** Stored notes beside the log, so the content store is searched too. */
const NOTES = 200

/** Queries of the kinds a model sends: an identifier, a few words, a phrase, a word nothing holds. */
const QUERIES = [
  { name: 'identifier', text: 'shape_250' },
  { name: 'words', text: 'fresh bread section' },
  { name: 'phrase', text: 'export preview png of section 12' },
  { name: 'absent', text: 'quokka' },
]

/** A realistic thread of `size` items (the shared fixture) and `NOTES` stored notes. */
async function threadOf(size: number) {
  const store: StrataStore = inMemoryStore()
  const threadId = `bench.memory-query.${size}`
  await fillThread(store, threadId, await agentThreadItems(size))
  const open = async () => {
    const thread = await createMemory({ store, levels: LEVELS }).thread(threadId)
    return { thread, tools: memoryTools(thread) }
  }
  const { thread, tools } = await open()
  for (let note = 0; note < NOTES; note++) {
    await tools.memory_store.execute({
      content: `Note ${note}: the client approved layout ${note % 17} with ${note % 5} revisions; export preview png due on day ${note}.`,
      tags: [`client-${note % 3}`],
    })
  }
  return { store, thread, tools, open }
}

/**
 * `memory_query` on the shared agent thread of 1k and 10k items (plus 200 stored notes): the ranked
 * query (any word, BM25F, snippets where the words meet) against the all-words scan it replaced, both
 * reading the thread's log, archive and content through the same store. `warm` runs again on an open
 * thread (the ranking keeps each entry's counted terms); `cold` opens the thread and queries once, so it
 * pays for counting every entry; `after-append` stores a message before each query, as an agent's loop
 * does (the thread's index then reads the new item, not the history).
 */
const benchmark: Benchmark = {
  name: 'memory-query',
  description: 'memory_query (ranked, any word) at 1k and 10k items against the all-words scan it replaced',
  async run({ progress }) {
    const rows: BenchRow[] = []
    const notes: string[] = []
    for (const size of SIZES) {
      const { store, thread, tools, open } = await threadOf(size)
      const query = (text: string) => tools.memory_query.execute({ text })
      for (const { name, text } of QUERIES) {
        const ranked = await query(text)
        if ('error' in ranked) throw new Error(ranked.error.message)
        const before = await allWordsQuery(thread, store, text)
        const time = await measure({
          strata: () => query(text),
          baseline: () => allWordsQuery(thread, store, text),
        })
        rows.push(
          rowOf(`query/warm/${name}`, { items: size, hits: ranked.results.length }, time, {
            baselineName: BASELINE_NAME,
          }),
        )
        if (size === SIZES.at(-1))
          notes.push(
            `"${text}" at ${size.toLocaleString('en-US')} items: ranked first ${ranked.results[0]?.id ?? 'none'} ` +
              `(${ranked.results[0]?.snippet.slice(0, 60) ?? ''}…); all-words found ${before.length}.`,
          )
        progress(`memory-query: ${size} items, ${name} measured`)
      }
      const text = QUERIES[1]!.text
      // An agent's loop: a message stored, then a query (the index reads what was appended, not the history).
      let appended = 0
      const append = () => thread.append({ role: 'user', content: `Another request ${++appended}` })
      const afterAppend = await measure({
        strata: async () => {
          await append()
          return query(text)
        },
        baseline: async () => {
          await append()
          return allWordsQuery(thread, store, text)
        },
      })
      rows.push(
        rowOf('query/after-append/words', { items: size }, afterAppend, { baselineName: BASELINE_NAME }),
      )
      const cold = await measure({
        strata: async () => memoryTools((await open()).thread).memory_query.execute({ text }),
        baseline: async () => allWordsQuery((await open()).thread, store, text),
        samples: 9,
        maxMs: 20_000,
      })
      rows.push(rowOf('query/cold/words', { items: size }, cold, { baselineName: BASELINE_NAME }))
      progress(`memory-query: ${size} items, cold measured`)
    }
    return { rows, notes }
  },
}

export default benchmark
