import { type JsonObject, type MessageInput, type TokenCounter, tokenEstimator } from '@strata-memory/core'

/** Tokens each generated message aims at, as the default estimator counts its text. */
export const MESSAGE_TOKENS = 200

/** Every `TOOL_EVERY`-th turn (3, 6, 9, …) the assistant calls a tool before it answers. */
export const TOOL_EVERY = 3

const SUBJECTS = [
  'the release plan',
  'our billing service',
  'the migration script',
  'this quarterly report',
  'the onboarding flow',
  'the search index',
  'that flaky integration test',
  'the caching layer',
  'the customer dashboard',
  'our deployment pipeline',
  'the pricing page',
  'the retry policy',
]
const VERBS = [
  'should handle',
  'keeps failing on',
  'needs to cover',
  'could simplify',
  'must not break',
  'already supports',
  'was rewritten for',
  'depends on',
  'slows down',
  'silently ignores',
]
const OBJECTS = [
  'expired sessions',
  'large uploads',
  'currency rounding',
  'timezone offsets',
  'partial refunds',
  'duplicate webhooks',
  'concurrent edits',
  'archived projects',
  'missing translations',
  'rate limited requests',
  'legacy accounts',
  'nightly exports',
]
const TAILS = [
  'before the next release',
  'according to the logs from yesterday',
  'when the queue is under load',
  'for the enterprise tenants',
  'without a feature flag',
  'once the schema change lands',
  'as the design review suggested',
  'after the cache is warmed',
  'in the staging environment',
  'unless someone objects',
]
const OPENERS = {
  user: [
    'Could you check whether',
    'I noticed that',
    'Please confirm that',
    'We agreed that',
    'Remind me why',
  ],
  assistant: ['I checked and', 'It looks like', 'From what I can see,', 'To summarise,', 'Good catch:'],
  tool: ['Record shows', 'Entry notes', 'Match found:', 'Log line says', 'Ticket reads'],
}
const TOOLS = ['search_docs', 'query_metrics', 'read_ticket', 'list_deploys']

/** A small deterministic generator (mulberry32), so every run writes the same conversation. */
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

const pick = <T>(next: () => number, values: readonly T[]): T => values[Math.floor(next() * values.length)]!

/** Sentences about the turn's topic, added until the text reaches `tokens` by the counter. */
function prose(
  next: () => number,
  voice: keyof typeof OPENERS,
  turn: number,
  counter: TokenCounter,
  tokens: number,
) {
  const sentences: string[] = []
  let text = ''
  while (counter.count(text) < tokens) {
    const number = Math.floor(next() * 10_000)
    sentences.push(
      `${pick(next, OPENERS[voice])} ${pick(next, SUBJECTS)} ${pick(next, VERBS)} ${pick(next, OBJECTS)} ` +
        `${pick(next, TAILS)} (case ${turn}-${number}).`,
    )
    text = sentences.join(' ')
  }
  return text
}

/**
 * The conversation of the compaction benchmark, turn by turn (1-based): a user message and an
 * assistant reply of about {@link MESSAGE_TOKENS} tokens each, with, every {@link TOOL_EVERY}-th turn,
 * a tool call and its result of about the same size each between them. Deterministic: the same turn
 * number always gives the same messages (fresh objects each call).
 */
export function conversationTurn(turn: number, counter: TokenCounter = tokenEstimator()): MessageInput[] {
  const next = random(turn * 2_654_435_761)
  const messages: MessageInput[] = [
    { role: 'user', content: prose(next, 'user', turn, counter, MESSAGE_TOKENS) },
  ]
  if (turn % TOOL_EVERY === 0) {
    const toolCallId = `call_${turn}`
    const toolName = pick(next, TOOLS)
    // The JSON around the text costs a few tokens; the text makes up the rest of the message.
    const input: JsonObject = {
      query: prose(next, 'user', turn, counter, MESSAGE_TOKENS - 15),
      limit: 5,
      since: `2025-0${1 + (turn % 9)}-1${turn % 10}`,
    }
    const output: JsonObject = {
      matches: 3 + (turn % 4),
      excerpt: prose(next, 'tool', turn, counter, MESSAGE_TOKENS - 15),
    }
    messages.push(
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId, toolName, input }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName, output }] },
    )
  }
  messages.push({ role: 'assistant', content: prose(next, 'assistant', turn, counter, MESSAGE_TOKENS) })
  return messages
}
