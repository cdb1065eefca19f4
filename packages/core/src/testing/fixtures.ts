import type { FactItem, Item, MessageItem, SummaryItem, TransitionItem, UnsequencedItem } from '../items'
import type { ContentRecord } from '../stores'

/** The epoch ms fixtures count from, so that fixture data is the same on every run. */
export const FIXTURE_BASE_TS = 1_700_000_000_000

let fixtureCounter = 0

/** A fresh number for ids and timestamps: unique within the process. */
function nextFixture(): number {
  fixtureCounter += 1
  return fixtureCounter
}

/** Fields of a fixture item that a test may set; everything left out gets a default. */
type Overrides<T extends Item> = Partial<Omit<T, 'seq' | 'type'>>

/** Overrides of {@link makeMessageItem}. */
export interface MessageItemOverrides extends Overrides<MessageItem> {
  /** Shorthand for `content: [{ type: 'text', text }]`; ignored when `content` is given. */
  text?: string
}

/**
 * A message item without a seq, ready to append: by default a user text message at level `global` in
 * `turn_0001`, with a unique id.
 *
 * @example
 * await store.append(threadId, [makeMessageItem({ role: 'assistant', text: 'Done' })], { expectedSeq: 0 })
 */
export function makeMessageItem(overrides: MessageItemOverrides = {}): Omit<MessageItem, 'seq'> {
  const number = nextFixture()
  const { text, ...fields } = overrides
  return {
    id: `fixture-item-${number}`,
    ts: FIXTURE_BASE_TS + number,
    level: 'global',
    turnId: 'turn_0001',
    role: 'user',
    content: [{ type: 'text', text: text ?? `Message ${number}` }],
    ...fields,
    type: 'message',
  }
}

/** A transition item without a seq: by default the end of a completed task, back at `project`. */
export function makeTransitionItem(overrides: Overrides<TransitionItem> = {}): Omit<TransitionItem, 'seq'> {
  const number = nextFixture()
  return {
    id: `fixture-item-${number}`,
    ts: FIXTURE_BASE_TS + number,
    level: 'project',
    turnId: 'turn_0001',
    fromLevel: 'task',
    reason: 'task-complete',
    agentFacingMessage: '[ACTIONS]: 3 task actions filtered for brevity',
    userFacingMessage: 'Task complete.',
    range: { fromSeq: 1, toSeq: 3 },
    ...overrides,
    type: 'transition',
  }
}

/** A summary item without a seq: by default a short-term summary of seqs 1-10 at `global`. */
export function makeSummaryItem(overrides: Overrides<SummaryItem> = {}): Omit<SummaryItem, 'seq'> {
  const number = nextFixture()
  return {
    id: `fixture-item-${number}`,
    ts: FIXTURE_BASE_TS + number,
    level: 'global',
    turnId: 'turn_0001',
    tier: 'short-term',
    text: `Summary ${number}`,
    range: { fromSeq: 1, toSeq: 10 },
    salience: 0.5,
    ...overrides,
    type: 'summary',
  }
}

/** A fact item without a seq: by default a tagged fact at `global`. */
export function makeFactItem(overrides: Overrides<FactItem> = {}): Omit<FactItem, 'seq'> {
  const number = nextFixture()
  return {
    id: `fixture-item-${number}`,
    ts: FIXTURE_BASE_TS + number,
    level: 'global',
    turnId: 'turn_0001',
    text: `Fact ${number}`,
    tags: ['fixture'],
    confidence: 0.9,
    salience: 0.5,
    ...overrides,
    type: 'fact',
  }
}

/** Options of {@link makeItems}. */
export interface MakeItemsOptions {
  /** The level of every item. @default 'global' */
  level?: string
  /** The turn number of the first user message. @default 1 */
  firstTurn?: number
}

/**
 * `count` text messages alternating user and assistant, each user message starting a new turn
 * (`turn_0001`, `turn_0002`, …), with unique ids and increasing timestamps.
 */
export function makeItems(
  count: number,
  { level = 'global', firstTurn = 1 }: MakeItemsOptions = {},
): UnsequencedItem[] {
  return Array.from({ length: count }, (_, index) => {
    const turn = firstTurn + Math.floor(index / 2)
    const role = index % 2 === 0 ? 'user' : 'assistant'
    return makeMessageItem({
      level,
      role,
      turnId: `turn_${String(turn).padStart(4, '0')}`,
      text: `${role} message ${index + 1}`,
    })
  })
}

/**
 * One item of every type and a message with every part type, with the awkward values a store must keep
 * exactly: unicode (emoji, CJK, right-to-left, combining marks, U+2028), quotes and backslashes,
 * newlines, nested JSON with nulls, empty containers and numbers of every kind, and nested `meta`.
 */
export function makeEveryItemType(): UnsequencedItem[] {
  const nestedJson = {
    query: "SELECT * FROM \"users\" WHERE name = 'O\\'Brien'",
    filters: [
      { field: 'age', op: '>=', value: 18 },
      { field: 'tags', op: 'in', value: ['a', 'b'] },
    ],
    page: { size: 50, cursor: null, flags: { exact: true, fuzzy: false } },
    numbers: [0, -1, 123.456, 1.5e-7, 1e21, -0.5, Number.MAX_SAFE_INTEGER],
    empty: { object: {}, array: [], string: '' },
    deep: { a: { b: { c: { d: { e: [[1, [2, [3]]]] } } } } },
  }
  return [
    makeMessageItem({
      role: 'system',
      turnId: 'turn_0000',
      text: 'You are a careful assistant.\nAnswer in "plain" text; paths look like C:\\temp\\x.',
      meta: { source: 'config', version: 2 },
    }),
    makeMessageItem({
      role: 'user',
      content: [
        {
          type: 'text',
          text: 'Héllo wörld 👋🏽 — 你好，世界 — مرحبا — ｶﾀｶﾅ — e\u0301 — tab\there — line\u2028separator',
        },
        {
          type: 'file',
          mediaType: 'image/png',
          data: 'data:image/png;base64,iVBORw0KGgo=',
          filename: 'diagram (1).png',
          meta: { width: 640, height: 480 },
        },
      ],
      meta: { framework: { id: 'msg_01', metadata: { nested: { list: [1, 'two', null, true] } } } },
    }),
    makeMessageItem({
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: 'The user wants the users table; query it.',
          meta: { signature: 'sig==' },
        },
        { type: 'text', text: 'Let me look that up.' },
        { type: 'tool-call', toolCallId: 'call_1', toolName: 'query_db', input: nestedJson },
        { type: 'tool-call', toolCallId: 'call_2', toolName: 'no_input', input: {} },
      ],
    }),
    makeMessageItem({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_1',
          toolName: 'query_db',
          output: { rows: [{ id: 1, name: 'Zoë', bio: null }], total: 1, echo: nestedJson },
          isError: false,
        },
        {
          type: 'tool-result',
          toolCallId: 'call_2',
          toolName: 'no_input',
          output: 'Error: permission denied',
          isError: true,
          meta: { retryable: false },
        },
      ],
    }),
    makeMessageItem({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call_3', toolName: 'count', output: 42 }],
    }),
    makeTransitionItem({ userFacingMessage: null, meta: { scope: { title: 'Draw a house', tags: [] } } }),
    makeTransitionItem({ level: 'global', fromLevel: 'project', reason: 'project-complete' }),
    makeSummaryItem({ tier: 'episodic', turnIds: ['turn_0001', 'turn_0002'], salience: 0 }),
    makeSummaryItem({ tier: 'long-term', salience: 1, text: 'Ünïcödé summary ✓' }),
    makeFactItem({ tags: ['user', 'preference', 'ünicode ✓'], confidence: 1, salience: 0.25 }),
  ]
}

/** The items as a store returns them after appending them to a thread at `lastSeq`. */
export function withSeqs(items: readonly UnsequencedItem[], lastSeq = 0): Item[] {
  return items.map((item, index) => ({ ...item, seq: lastSeq + index + 1 }) as Item)
}

/**
 * A content record with a unique id: by default a `text` record from the `fixture` source at
 * `FIXTURE_BASE_TS`. `size` is computed from `data` unless given.
 */
export function makeContentRecord(overrides: Partial<ContentRecord> = {}): ContentRecord {
  const number = nextFixture()
  const data = overrides.data ?? `Content ${number}`
  return {
    id: `fixture-content-${number}`,
    type: 'text',
    source: 'fixture',
    tags: [],
    ts: FIXTURE_BASE_TS,
    size: new TextEncoder().encode(data).length,
    data,
    ...overrides,
  }
}
