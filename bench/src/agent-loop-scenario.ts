import type { ModelMessage, ToolResultPart } from 'ai'

/** A value placed early in the run, and a phrase the model would search for it with (not the value). */
export interface PlantedDetail {
  value: string
  query: string
  /** Where it was placed: the user's request, or a fetched page. */
  source: 'request' | 'page'
}

/**
 * One event of the run. A `step` is one model call: the context is built before it, then the model's
 * assistant message (a short thought and one tool call) and the tool's result are appended.
 * Scopes are opened and closed by the application between steps.
 */
export type LoopEvent =
  | { kind: 'request'; message: ModelMessage }
  | { kind: 'enter'; level: 'project' | 'task'; title: string; instructions: string }
  | { kind: 'exit'; summary: string }
  | { kind: 'step'; messages: ModelMessage[] }
  | { kind: 'answer' }

export const SYSTEM = 'You are a procurement research agent. Use the tools; cite what you read.'

const REQUEST_DETAILS: readonly (PlantedDetail & { sentence: string })[] = [
  {
    sentence: 'I prefer vendors that offer carbon-neutral delivery.',
    value: 'carbon-neutral delivery',
    query: 'prefer vendors offer',
    source: 'request',
  },
  {
    sentence: 'Please sign the report as Ilse Varga.',
    value: 'Ilse Varga',
    query: 'sign the report',
    source: 'request',
  },
  {
    sentence: 'Keep the total under 48,500 EUR.',
    value: '48,500 EUR',
    query: 'keep total under',
    source: 'request',
  },
]

/** Details planted in the pages of the first two tasks, one per page, in the page's middle. */
const PAGE_DETAILS: readonly (PlantedDetail & { sentence: string })[] = [
  {
    sentence: 'The vendor reference code for Lusa Mobiliario is ZX-4471.',
    value: 'ZX-4471',
    query: 'vendor reference code Lusa',
  },
  {
    sentence: 'The account manager at Lusa Mobiliario is Teodora Quintal.',
    value: 'Teodora Quintal',
    query: 'account manager Lusa',
  },
  {
    sentence: 'The framework discount negotiated with Douro Desks is 17.5 percent.',
    value: '17.5 percent',
    query: 'framework discount Douro',
  },
  {
    sentence: 'The installation deposit for the Ribeira fit-out is 12,340 EUR.',
    value: '12,340 EUR',
    query: 'installation deposit Ribeira',
  },
  {
    sentence: 'Router firmware at the Porto site is pinned to build KQ-9082.',
    value: 'KQ-9082',
    query: 'router firmware pinned',
  },
  {
    sentence: 'The on-call engineer of the network contractor is Baltasar Nunes.',
    value: 'Baltasar Nunes',
    query: 'on-call engineer contractor',
  },
].map((detail) => ({ ...detail, source: 'page' as const }))

export const PLANTED: readonly PlantedDetail[] = [...REQUEST_DETAILS, ...PAGE_DETAILS].map(
  ({ value, query, source }) => ({ value, query, source }),
)

/** Characters a token of the filler text, by the o200k_base encoding (measured: the bench prints the page sizes). */
const CHARS_PER_TOKEN = 5.9

const TASKS = [
  'Furniture vendors',
  'Network and IT',
  'Catering contracts',
  'Cleaning services',
  'Security and access',
  'Moving logistics',
]

// Filler words only: none of them is a word of a planted detail's query.
const FILLER = (
  'supplier catalogue shipping warranty lead time pallet invoice quote tender compliance region pricing ' +
  'schedule capacity freight inventory order volume rate quality audit certificate service level ' +
  'payment terms insurance storage dispatch route client office floor desk chair cable rack meal'
).split(' ')

/** A small deterministic generator (mulberry32), so every run writes the same pages. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** Sentences of filler words until the text has `chars` characters. */
function prose(next: () => number, chars: number): string {
  const sentences: string[] = []
  let size = 0
  while (size < chars) {
    const length = 8 + Math.floor(next() * 10)
    const words = Array.from({ length }, () => FILLER[Math.floor(next() * FILLER.length)]!)
    const sentence = `${words.join(' ')} ${Math.floor(next() * 9_000) + 100}.`
    sentences.push(sentence[0]!.toUpperCase() + sentence.slice(1))
    size += sentence.length + 1
  }
  return sentences.join(' ')
}

/** Options of {@link agentLoopEvents}. */
export interface AgentLoopOptions {
  /** Seeds the page text. @default 7 */
  seed?: number
  /** Search, fetch, fetch, note cycles per task. @default 7 */
  cyclesPerTask?: number
}

/**
 * The run: one user request at the broadest level stating a preference, a name and a number; then
 * a project with six tasks, each of `cyclesPerTask` cycles of search (a short result), two page
 * fetches (2–6k tokens each) and a note; the pages of the first two
 * tasks carry the planted details. About 170 model calls, the last of which writes the answer.
 */
export function agentLoopEvents({ seed = 7, cyclesPerTask = 7 }: AgentLoopOptions = {}): LoopEvent[] {
  const next = random(seed)
  let calls = 0
  const step = (
    thought: string,
    toolName: string,
    input: object,
    output: ToolResultPart['output'],
  ): LoopEvent => {
    const toolCallId = `call_${++calls}`
    return {
      kind: 'step',
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'text', text: thought },
            { type: 'tool-call', toolCallId, toolName, input },
          ],
        },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName, output }] },
      ],
    }
  }
  const request = [
    'We are opening an office in Porto next quarter. Research suppliers for furniture, IT, catering,',
    'cleaning, security and the move, and write me a short report with a recommendation for each.',
    ...REQUEST_DETAILS.map((detail) => detail.sentence),
  ].join(' ')
  const events: LoopEvent[] = [
    { kind: 'request', message: { role: 'user', content: request } },
    {
      kind: 'enter',
      level: 'project',
      title: 'Porto office suppliers',
      instructions: 'One recommendation per area, within the budget.',
    },
  ]
  const plants = [...PAGE_DETAILS]
  let page = 0
  TASKS.forEach((task, taskIndex) => {
    events.push({
      kind: 'enter',
      level: 'task',
      title: task,
      instructions: `Shortlist ${task.toLowerCase()}.`,
    })
    for (let cycle = 0; cycle < cyclesPerTask; cycle++) {
      const topic = `${task.toLowerCase()} Porto option ${cycle + 1}`
      const urls = [0, 1].map((index) => `https://suppliers.example/${taskIndex}/${cycle}/${index}`)
      events.push(
        step(
          `Searching for ${topic}.`,
          'web_search',
          { query: topic },
          {
            type: 'json',
            value: {
              results: urls.map((url, index) => ({
                url,
                title: `${task} supplier ${cycle}.${index}`,
                snippet: prose(next, 160),
              })),
            },
          },
        ),
      )
      for (const url of urls) {
        page++
        const chars = Math.floor((2_000 + next() * 4_000) * CHARS_PER_TOKEN)
        const head = prose(next, chars / 2)
        const planted = taskIndex < 2 && cycle % 2 === 0 ? plants.shift() : undefined
        const body = `# ${task}: ${url}\n\n${head} ${planted ? `${planted.sentence} ` : ''}${prose(next, chars / 2)}`
        events.push(step(`Reading ${url}.`, 'fetch_page', { url }, { type: 'text', value: body }))
      }
      events.push(
        step(
          'Noting what I found.',
          'take_note',
          { note: `${task}, option ${cycle + 1}: two pages read, ${page} so far.` },
          { type: 'json', value: { saved: true } },
        ),
      )
    }
    events.push({ kind: 'exit', summary: `${task}: ${cyclesPerTask} options compared; shortlist noted.` })
  })
  events.push({ kind: 'exit', summary: 'All six areas researched; ready to write the report.' })
  events.push({ kind: 'answer' })
  if (plants.length > 0) throw new Error(`agentLoopEvents(): ${plants.length} details were not planted`)
  return events
}

/** The page a step fetched, or undefined for another tool. */
export function pageOf(event: Extract<LoopEvent, { kind: 'step' }>): string | undefined {
  const part = (event.messages[1]!.content as ToolResultPart[])[0]!
  return part.toolName === 'fetch_page' && part.output.type === 'text' ? part.output.value : undefined
}
