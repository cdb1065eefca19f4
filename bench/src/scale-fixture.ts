import type { MessageInput, Thread } from '@strata-memory/core'

/**
 * The thread of `pnpm bench scale`: a long agent thread with a realistic mix. Bump the version when the
 * generator changes what it writes: cached fixtures are keyed by it (and by size).
 */
export const SCALE_FIXTURE_VERSION = 1

/** The level ladder the fixture uses (core's default). */
export type ScaleLevel = 'global' | 'project' | 'task'

/** One call of the thread API. Appends carry several messages; scopes open and close one at a time. */
export type ScaleOperation =
  | { kind: 'append'; messages: MessageInput[] }
  | { kind: 'enter'; level: 'project' | 'task'; title: string }
  | { kind: 'exit' }

/** Items an operation writes: its messages, a scope's opening, or a transition and a scope summary. */
export const itemsOf = (operation: ScaleOperation) =>
  operation.kind === 'append' ? operation.messages.length : operation.kind === 'enter' ? 1 : 2

/** Tool results are 1 KB to 8 KB of text. */
export const RESULT_MIN_BYTES = 1_024
export const RESULT_MAX_BYTES = 8_192

/** A small deterministic PRNG (mulberry32): the same size gives the same thread on every machine. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

const WORDS = (
  'build test deploy config server client request response error retry cache index query table ' +
  'column schema migration user account invoice order payment refund report chart page layout ' +
  'header footer button form input validation token session timeout queue worker job batch ' +
  'stream file folder path module package version release branch commit merge review'
).split(' ')
const TOOLS = ['read_file', 'run_tests', 'search_code', 'query_db', 'fetch_page', 'list_files']

/**
 * A tool's output of exactly `bytes` UTF-8 bytes (ASCII), shaped like a log or a file listing:
 * numbered lines of words, different for every call.
 */
function toolOutput(next: () => number, call: number, bytes: number): string {
  let text = ''
  for (let line = 1; text.length < bytes; line++) {
    const words = Array.from({ length: 6 + Math.floor(next() * 10) }, () => {
      return WORDS[Math.floor(next() * WORDS.length)]!
    })
    text += `${call}:${line} ${words.join(' ')}\n`
  }
  return text.slice(0, bytes)
}

/** The next `count` operations' worth of the thread, a cycle at a time. */
export interface ScaleCycle {
  operations: ScaleOperation[]
  items: number
}

/**
 * Generates the thread as cycles, each starting at the top level with no scope open (a place where a
 * compaction or archive may cut cleanly): 3 to 5 global chat turns, then a project of 2 to 4 tasks. A
 * task is a user request, 4 to 10 tool actions (an assistant's tool call and its 1–8 KB result, two
 * items each) with one exchange with the user among them, and the assistant's answer; its scope opens
 * before and closes after. About 28% of the items are tool results. The last cycle is cut to size
 * (chat turns and one task) so that the thread holds exactly `size` items.
 */
export function* scaleCycles(size: number): Generator<ScaleCycle> {
  const next = random(size ^ 0x5ca1e)
  const between = (low: number, high: number) => low + Math.floor(next() * (high - low + 1))
  let written = 0
  let calls = 0
  const chat = (turn: number): MessageInput[] => [
    { role: 'user', content: `Turn ${turn}: can you check the ${WORDS[turn % WORDS.length]} status?` },
    {
      role: 'assistant',
      content: `The ${WORDS[(turn * 7) % WORDS.length]} looks fine; ${between(1, 40)} items need a look.`,
    },
  ]
  /** A task scope of `actions` tool actions: 2 × actions + 5 items (+ 2 with 3 actions or more). */
  const taskOf = (name: string, actions: number): ScaleOperation[] => {
    const messages: MessageInput[] = [
      { role: 'user', content: `Please handle task ${name}: fix the ${WORDS[actions]} step.` },
    ]
    for (let action = 0; action < actions; action++) {
      if (action === 2) {
        messages.push(
          { role: 'assistant', content: `Step ${action} of task ${name}: shall I go on?` },
          { role: 'user', content: 'Yes, go on.' },
        )
      }
      const id = `call_${++calls}`
      const toolName = TOOLS[calls % TOOLS.length]!
      const bytes = between(RESULT_MIN_BYTES, RESULT_MAX_BYTES)
      messages.push(
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: id, toolName, input: { target: `t${calls}` } }],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: id, toolName, output: toolOutput(next, calls, bytes) },
          ],
        },
      )
    }
    messages.push({ role: 'assistant', content: `Task ${name} is done after ${actions} steps.` })
    return [
      { kind: 'enter', level: 'task', title: `Task ${name}` },
      { kind: 'append', messages },
      { kind: 'exit' },
    ]
  }
  for (let cycle = 1; written < size; cycle++) {
    const operations: ScaleOperation[] = []
    const turns = between(3, 5)
    operations.push({
      kind: 'append',
      messages: Array.from({ length: turns }, (_, turn) => chat(cycle * 10 + turn)).flat(),
    })
    operations.push({ kind: 'enter', level: 'project', title: `Project ${cycle}` })
    const tasks = between(2, 4)
    for (let task = 1; task <= tasks; task++) operations.push(...taskOf(`${cycle}.${task}`, between(4, 10)))
    operations.push({ kind: 'exit' })
    const items = operations.reduce((sum, operation) => sum + itemsOf(operation), 0)
    if (written + items <= size) {
      written += items
      yield { operations, items }
      continue
    }
    // The last cycle, cut to size with the same mix: chat turns (a user message alone at an odd
    // remainder), then one task with about 28% of the rest as tool actions.
    const rest = size - written
    const actions = Math.round(0.28 * rest)
    const task = actions >= 3 ? taskOf(`${cycle}.1`, actions) : []
    const chatItems = rest - task.reduce((sum, operation) => sum + itemsOf(operation), 0)
    const messages = Array.from({ length: Math.ceil(chatItems / 2) }, (_, turn) => chat(cycle * 10 + turn))
      .flat()
      .slice(0, chatItems)
    written += rest
    yield { operations: [{ kind: 'append', messages }, ...task], items: rest }
  }
}

/** Where the fixture's cycles start: 1-based seqs of the thread's first item of each cycle. */
export interface FixtureLayout {
  size: number
  version: number
  cycleStarts: number[]
}

/**
 * Writes the fixture of `size` items into `thread` through the public thread API (a memory without
 * compaction), and returns where its cycles start. `progress` gets a line every 10% or so.
 */
export async function writeScaleThread(
  thread: Thread<ScaleLevel>,
  size: number,
  progress: (line: string) => void = () => undefined,
): Promise<FixtureLayout> {
  const cycleStarts: number[] = []
  let written = 0
  let reported = 0
  for (const cycle of scaleCycles(size)) {
    cycleStarts.push(written + 1)
    for (const operation of cycle.operations) {
      if (operation.kind === 'append') await thread.append(operation.messages)
      else if (operation.kind === 'enter') await thread.enter(operation.level, { title: operation.title })
      else await thread.exit({ outcome: 'complete' })
    }
    written += cycle.items
    if (written - reported >= size / 10) {
      reported = written
      progress(
        `scale: fixture ${size.toLocaleString('en-US')}: ${written.toLocaleString('en-US')} items written`,
      )
    }
  }
  return { size, version: SCALE_FIXTURE_VERSION, cycleStarts }
}
