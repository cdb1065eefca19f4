import { createMemory, type MessageInput, type Thread } from '@strata-memory/core'
import { memoryTools } from '@strata-memory/core/tools'
import { type Benchmark, type BenchRow, rowOf, significant } from './harness.ts'

const ITERATIONS = 20
const SEARCH_BYTES = 8 * 1024
const PAGE_BYTES = 50 * 1024
const PAGES_PER_ITERATION = 3
const BASELINE = 'without the content channel'
/** The reduction the issue asks for at the last iteration, in tokens and in bytes. */
const TARGET_REDUCTION = 0.95
/** The promise: with the channel the context stays under 50 KB after twenty iterations. */
const TARGET_BYTES = 50_000

const WORDS = (
  'memory agent context token budget citation archive summary research market revenue growth ' +
  'latency cluster shard replica index vector query retrieval policy compliance region pricing ' +
  'customer churn forecast quarter report analysis source evidence claim method result dataset'
).split(' ')

/** A deterministic text generator: the same seed gives the same words. */
function words(seed: number, bytes: number): string {
  let state = seed * 2_654_435_761 + 1
  const out: string[] = []
  let size = 0
  while (size < bytes) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    const word = WORDS[state % WORDS.length]!
    out.push(word)
    size += word.length + 1
  }
  return out.join(' ').slice(0, bytes)
}

const urlOf = (iteration: number, page: number) => `https://research.example/${iteration}/page-${page}`

/** A 50 KB web page as markdown, with a title line. */
const pageOf = (iteration: number, page: number) => {
  const head = `# Findings ${iteration}.${page}\n\n`
  return head + words(iteration * 10 + page, PAGE_BYTES - head.length)
}

/** An 8 KB search result: a JSON list of hits. */
function searchOf(iteration: number) {
  const hits: { url: string; title: string; snippet: string }[] = []
  for (let hit = 0; JSON.stringify(hits).length < SEARCH_BYTES - 400; hit++) {
    hits.push({
      url: urlOf(iteration, hit),
      title: `Result ${iteration}.${hit}`,
      snippet: words(iteration * 1_000 + hit, 300),
    })
  }
  return { query: `question ${iteration}`, hits }
}

/** A summary-sized database answer (about 300 bytes). */
const databaseOf = (iteration: number) => ({
  rows: [
    { metric: 'revenue', quarter: `Q${(iteration % 4) + 1}`, value: 1_200 + iteration },
    { metric: 'churn', quarter: `Q${(iteration % 4) + 1}`, value: 0.03 },
  ],
  total: 2,
})

const call = (toolCallId: string, toolName: string, input: MessageInput['content']) =>
  ({ type: 'tool-call', toolCallId, toolName, input }) as never

/** UTF-8 bytes of the context's messages as JSON, about what goes over the wire. */
const bytesOf = (messages: unknown) => new TextEncoder().encode(JSON.stringify(messages)).length

/**
 * A research agent, twenty iterations: search (8 KB of hits), read three 50 KB pages, and every other
 * iteration one small database query, then answer. The same messages go to two threads in one
 * process, with and without the content channel; each row is the context the next model call would
 * get once the iteration is answered. At the end every page is read back through `memory_retrieve`,
 * by the memory id the final context shows for it (its citation, or its line in the note that lists the
 * results grouped out of the context), and compared byte for byte; the run fails unless the context at
 * the last iteration is under 50 KB and at least 95% smaller than without the channel.
 */
const benchmark: Benchmark = {
  name: 'content',
  description: `context size of a research agent over ${ITERATIONS} iterations (8 KB search, 3 × 50 KB pages), with and without the content channel`,
  async run({ progress }) {
    const withChannel = await createMemory().thread('bench.content.on')
    const without = await createMemory({ content: false }).thread('bench.content.off')
    const threads: Thread[] = [withChannel, without]
    const pages = new Map<string, string>()
    const rows: BenchRow[] = []
    const tokenRows: BenchRow[] = []
    let peak = { tokens: 0, bytes: 0, baselineTokens: 0 }

    const both = async (messages: MessageInput[]) => {
      for (const thread of threads) await thread.append(structuredClone(messages))
    }
    /** A model call: both contexts, the larger with-channel one remembered as the peak. */
    const modelCall = async () => {
      const [on, off] = await Promise.all(
        threads.map((thread) => thread.context({ system: 'You are a research agent.' })),
      )
      if (on!.stats.contextTokens > peak.tokens) {
        peak = {
          tokens: on!.stats.contextTokens,
          bytes: bytesOf(on!.messages),
          baselineTokens: off!.stats.contextTokens,
        }
      }
      return { on: on!, off: off! }
    }

    for (let iteration = 1; iteration <= ITERATIONS; iteration++) {
      const id = (name: string) => `${name}-${iteration}`
      await both([
        { role: 'user', content: `Research question ${iteration}: how did the market move?` },
        {
          role: 'assistant',
          content: [call(id('search'), 'web_search', { query: `question ${iteration}` } as never)],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: id('search'),
              toolName: 'web_search',
              output: searchOf(iteration),
            },
          ],
        },
      ])
      await modelCall()
      const fetches: MessageInput[] = [
        {
          role: 'assistant',
          content: Array.from({ length: PAGES_PER_ITERATION }, (_, page) =>
            call(id(`fetch${page}`), 'fetch_page', { url: urlOf(iteration, page) } as never),
          ),
        },
      ]
      for (let page = 0; page < PAGES_PER_ITERATION; page++) {
        const text = pageOf(iteration, page)
        pages.set(urlOf(iteration, page), text)
        fetches.push({
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: id(`fetch${page}`), toolName: 'fetch_page', output: text },
          ],
        })
      }
      await both(fetches)
      await modelCall()
      if (iteration % 2 === 0) {
        await both([
          {
            role: 'assistant',
            content: [call(id('db'), 'query_db', { sql: 'select metric, value from kpis' } as never)],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: id('db'),
                toolName: 'query_db',
                output: databaseOf(iteration),
              },
            ],
          },
        ])
        await modelCall()
      }
      await both([{ role: 'assistant', content: `Iteration ${iteration}: ${words(iteration * 7, 400)}` }])

      const { on, off } = await modelCall()
      const params = { iteration }
      tokenRows.push(
        rowOf(
          'tokens/iteration',
          params,
          { strata: on.stats.contextTokens, baseline: off.stats.contextTokens },
          { unit: 'tokens', baselineName: BASELINE },
        ),
      )
      rows.push(
        rowOf(
          'bytes/iteration',
          params,
          { strata: bytesOf(on.messages), baseline: bytesOf(off.messages) },
          { unit: 'bytes', baselineName: BASELINE },
        ),
      )
      progress(
        `content: iteration ${iteration}: ${on.stats.contextTokens} vs ${off.stats.contextTokens} tokens`,
      )
    }

    // Every page comes back byte for byte, by the memory id the final context shows for it: in its
    // citation, or in its line of the note that lists the results grouped out of the context.
    const { messages } = await withChannel.context()
    const tools = memoryTools(withChannel)
    const shown = new Map<string, string>()
    let cited = 0
    for (const message of messages) {
      for (const part of message.content) {
        if (part.type === 'tool-result' && part.toolName === 'fetch_page') {
          const citation = String(part.output)
          const memoryId = /Memory id: (mem_[\w-]+)/.exec(citation)?.[1]
          const url = /URL: (\S+)/.exec(citation)?.[1]
          if (memoryId === undefined || url === undefined)
            throw new Error(`not a citation: ${citation.slice(0, 200)}`)
          shown.set(url, memoryId)
          cited++
        }
        if (part.type === 'text' && part.text.startsWith('[STORED RESULTS]')) {
          for (const [, url, memoryId] of part.text.matchAll(/^- .*URL: (\S+).* — (mem_[\w-]+)$/gm))
            shown.set(url!, memoryId!)
        }
      }
    }
    let retrieved = 0
    for (const [url, page] of pages) {
      const memoryId = shown.get(url)
      if (memoryId === undefined) throw new Error(`page ${url} has no memory id in the final context`)
      const result = await tools.memory_retrieve.execute({ id: memoryId })
      if ('error' in result || result.content !== page) throw new Error(`page ${url} did not come back whole`)
      retrieved++
    }

    const last = (list: BenchRow[]) => list.at(-1)!
    const reduction = (row: BenchRow) => 1 - row.strata / row.baseline!
    const [tokens, bytes] = [reduction(last(tokenRows)), reduction(last(rows))]
    if (tokens < TARGET_REDUCTION || bytes < TARGET_REDUCTION) {
      throw new Error(
        `reduction at iteration ${ITERATIONS} is ${tokens} (tokens), ${bytes} (bytes): below ${TARGET_REDUCTION}`,
      )
    }
    if (last(rows).strata >= TARGET_BYTES) {
      throw new Error(
        `the context at iteration ${ITERATIONS} is ${last(rows).strata} bytes: not under ${TARGET_BYTES}`,
      )
    }
    const percent = (value: number) => `${significant(value * 100, 4)}%`
    return {
      rows: [...tokenRows, ...rows],
      notes: [
        `Iteration ${ITERATIONS}: ${percent(tokens)} fewer tokens and ${percent(bytes)} fewer bytes than ${BASELINE} ` +
          `(${last(rows).strata.toLocaleString('en-US')} vs ${last(rows).baseline!.toLocaleString('en-US')} bytes).`,
        `Largest context with the channel (pages still unanswered, shown whole): ${peak.tokens.toLocaleString('en-US')} tokens, ` +
          `${peak.bytes.toLocaleString('en-US')} bytes, while the baseline was at ${peak.baselineTokens.toLocaleString('en-US')} tokens.`,
        `All ${retrieved} pages read back byte for byte with memory_retrieve by the memory id the final context shows ` +
          `(${cited} in their own citation, ${retrieved - cited} in the [STORED RESULTS] note).`,
      ],
    }
  },
}

export default benchmark
