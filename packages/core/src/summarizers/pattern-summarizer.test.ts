import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import type { Item, JsonValue, MessagePart } from '../items'
import { normalizeFactText } from '../items/facts'
import { FACT_CHARS, holdsGeneratedId } from './fact-rules'
import { patternSummarizer } from './pattern-summarizer'
import { findIdentifiers } from './text-gist'

let seq = 0
const message = (role: 'user' | 'assistant' | 'tool', content: MessagePart[]): Item => ({
  id: `i${++seq}`,
  seq,
  ts: seq,
  level: 'task',
  turnId: 'turn_0001',
  type: 'message',
  role,
  content,
})
const say = (role: 'user' | 'assistant', text: string) => message(role, [{ type: 'text', text }])
const call = (toolName: string, input: JsonValue = {}, toolCallId = `c${seq}`) =>
  message('assistant', [{ type: 'tool-call', toolCallId, toolName, input }])
const result = (toolName: string, output: JsonValue, toolCallId: string, isError = false) =>
  message('tool', [{ type: 'tool-result', toolCallId, toolName, output, ...(isError ? { isError } : {}) }])
const summaryItem = (text: string): Item => ({
  id: `s${++seq}`,
  seq,
  ts: seq,
  level: 'global',
  turnId: 'turn_0001',
  type: 'summary',
  tier: 'short-term',
  text,
  range: { fromSeq: 1, toSeq: 2 },
  salience: 0.5,
})

/** A support conversation: a name, a preference, an order looked up, a ticket opened. */
const conversation = (): Item[] => [
  say(
    'user',
    'Hi, my name is Ana Lima. Where is my order A-1234? I prefer email updates to ana@example.com.',
  ),
  call('lookup_order', { orderId: 'A-1234' }, 'q1'),
  result(
    'lookup_order',
    {
      orderId: 'A-1234',
      status: 'shipped',
      trackingCode: 'ZX-4471',
      events: Array.from(
        { length: 12 },
        (_, day) => `Parcel scanned at the Leipzig hub on 2026-11-${10 + day}.`,
      ),
    },
    'q1',
  ),
  say('assistant', 'Your order A-1234 has shipped, tracking ZX-4471. It should arrive on Friday.'),
  say('user', 'Thanks. Always call me Ana. Can you open a ticket about the dented lid?'),
  call('create_ticket', { subject: 'Dented lid', orderId: 'A-1234' }, 'q2'),
  result(
    'create_ticket',
    'Created ticket T-5532 in queue support/returns.\nAn agent replies within 24 h.',
    'q2',
  ),
  say('assistant', 'Done: ticket T-5532 is open.'),
]

describe('patternSummarizer', () => {
  // The old rules quoted every statement (`User said: "…"`) and gave every identifier of a tool result a
  // fact of its own (`trackingCode (lookup_order): ZX-4471`), ids nobody used included (issue 24).
  it("keeps the user's name and preference worded about the user, and the identifiers the answers told them", async () => {
    const { facts } = await patternSummarizer().summarize(conversation(), { tier: 'episodic' })
    const texts = facts.map((fact) => fact.text)
    expect(texts).toEqual([
      "User's name is Ana Lima",
      'User prefers email updates to ana@example.com',
      "User's order A-1234 has shipped, tracking ZX-4471",
      'User goes by Ana',
      'Ticket T-5532 is open',
    ])
    expect(facts.find((fact) => fact.text.includes('Ana Lima'))).toMatchObject({
      tags: ['user', 'name'],
      confidence: 0.9,
    })
    expect(facts.find((fact) => fact.text.includes('ZX-4471'))).toMatchObject({ tags: ['answer'] })
    // Each once, though the order id came in the user's words, the call and the result.
    expect(new Set(texts.map(normalizeFactText)).size).toBe(texts.length)
  })

  it("keeps the user's words, each call with its result's gist, the answers and the identifiers", async () => {
    const { summary } = await patternSummarizer().summarize(conversation(), { tier: 'episodic' })
    expect(summary).toBe(
      [
        '2 tool calls: 1 create_ticket, 1 lookup_order.',
        // The first six of the result's identifiers: a long list does not crowd out the others.
        'Identifiers: 2026-11-13, 2026-11-12, 2026-11-11, 2026-11-10',
        'User:',
        '- Hi, my name is Ana Lima. Where is my order A-1234? I prefer email updates to ana@example.com.',
        '- Thanks. Always call me Ana. Can you open a ticket about the dented lid?',
        'Tools:',
        '- lookup_order(orderId=A-1234) → orderId: A-1234, status: shipped, trackingCode: ZX-4471, events: [Parcel scanned at the Leipzig hub on…, …]',
        '- create_ticket(subject=Dented lid, orderId=A-1234) → Created ticket T-5532 in queue support/returns.',
        'Assistant:',
        '- Your order A-1234 has shipped, tracking ZX-4471.',
        '- Done: ticket T-5532 is open.',
      ].join('\n'),
    )
  })

  it('counts tool calls by action, most frequent first, adds failures and the outcome, and folds repeats', async () => {
    const items = [
      say('user', 'Draw'),
      ...Array.from({ length: 15 }, () => call('create_shape')),
      ...Array.from({ length: 3 }, () => call('update_shape')),
      call('canvas', { action: 'delete_shape' }),
      result('update_shape', 'no', 'x', true),
    ]
    const { summary, facts } = await patternSummarizer().summarize(items, {
      tier: 'scope',
      scope: { title: 'House', level: 'task', outcome: 'complete' },
    })
    expect(summary.split('\n')[0]).toBe(
      '19 tool calls: 15 create_shape, 3 update_shape, 1 delete_shape. 1 tool call failed. Outcome: task "House" completed.',
    )
    expect(summary).toContain('- create_shape() (×15)')
    expect(summary).toContain('- canvas(action=delete_shape)')
    expect(summary).toContain('- update_shape failed: no')
    expect(summary).toContain('User:\n- Draw')
    expect(facts).toEqual([])
  })

  it('is deterministic: ties ranked by name, the tail folded past maxActions, the same items the same text', async () => {
    const items = ['b', 'a', 'c', 'a', 'b', 'c', 'd'].map((name) => call(name))
    const summarizer = patternSummarizer({ maxActions: 2 })
    const first = await summarizer.summarize(items, { tier: 'scope' })
    const reversed = await summarizer.summarize([...items].reverse(), { tier: 'scope' })
    expect(first.summary.split('\n')[0]).toBe('7 tool calls: 2 a, 2 b, 3 other.')
    expect(reversed.summary.split('\n')[0]).toBe(first.summary.split('\n')[0])
    expect(await summarizer.summarize(items, { tier: 'scope' })).toEqual(first)
  })

  it('says so when there is nothing, and honours an aborted signal', async () => {
    expect(await patternSummarizer().summarize([], { tier: 'long-term' })).toEqual({
      summary: 'Nothing happened.',
      facts: [],
    })
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    await expect(
      patternSummarizer().summarize([], { tier: 'scope', signal: controller.signal }),
    ).rejects.toThrow('stop')
  })

  it('labels by tool name, not by an input field named type (create_shape of a text is create_shape)', async () => {
    const items = [
      call('create_shape', { type: 'text' }),
      call('create_shape', { type: 'rect' }),
      say('assistant', 'Done.'),
      say('assistant', 'Really.'),
    ]
    const { summary } = await patternSummarizer().summarize(items, { tier: 'scope' })
    expect(summary.split('\n')[0]).toBe('2 tool calls: 2 create_shape.')
    expect(summary).toContain('- create_shape(type=text)\n- create_shape(type=rect)')
  })

  it('carries the content of the summaries it summarizes forward (a long-term summary)', async () => {
    const summarizer = patternSummarizer()
    const short = await summarizer.summarize(conversation(), { tier: 'short-term' })
    const llm = summaryItem(
      '## Decisions\n- Refund R-99 approved\n## Identifiers\n- R-99\n## Open work\n- none',
    )
    const { summary } = await summarizer.summarize([summaryItem(short.summary), llm], { tier: 'long-term' })
    expect(summary).toContain(
      'Earlier:\n- 2 tool calls: 1 create_ticket, 1 lookup_order.\n- Refund R-99 approved',
    )
    expect(summary).toContain(
      'User:\n- Hi, my name is Ana Lima. Where is my order A-1234? I prefer email updates to ana@example.com.',
    )
    expect(summary).not.toContain('none')
    expect(summary).not.toContain('##')
  })

  it('leaves out facts the thread already knows, in the new wording or quoted in the old one, and keeps the newest user facts first past maxFacts', async () => {
    const items = [
      say('user', 'I prefer tea. I love jazz. Call me Bo. I always fly from OSL.'),
      call('lookup', {}, 'k1'),
      result('lookup', { customerId: 'C-77', bookingCode: 'BK-1' }, 'k1'),
      say('assistant', 'Your booking BK-1 is confirmed.'),
    ]
    const { facts } = await patternSummarizer({ maxFacts: 3 }).summarize(items, {
      tier: 'episodic',
      // A thread written before issue 24 holds its facts in the old wording: they still count as known.
      knownFacts: ['user said: "i prefer tea."', 'User loves jazz'],
    })
    expect(facts.map((fact) => fact.text)).toEqual([
      'User goes by Bo',
      'User always flies from OSL',
      "User's booking BK-1 is confirmed",
    ])
    const few = await patternSummarizer({ maxFacts: 2 }).summarize(items, { tier: 'episodic' })
    expect(few.facts.map((fact) => fact.text)).toEqual(['User goes by Bo', 'User always flies from OSL'])
    // A result's own fields give no facts: customerId C-77 was never told to the user.
    const all = await patternSummarizer().summarize(items, { tier: 'episodic' })
    expect(all.facts.map((fact) => fact.text).join('\n')).not.toContain('C-77')
  })

  it('stays within maxChars for thousands of items and 50k-character results, newest and first request kept', async () => {
    const items: Item[] = [say('user', 'Migrate the fleet, job J-0 first.')]
    for (let index = 1; index <= 3_000; index++) {
      items.push(call('run', { job: `J-${index}` }, `r${index}`))
      items.push(result('run', `${'x'.repeat(50_000)} done`, `r${index}`))
      if (index % 100 === 0) items.push(say('user', `Next batch ${index}.`))
    }
    const { summary, facts } = await patternSummarizer({ maxChars: 800 }).summarize(items, {
      tier: 'episodic',
    })
    expect(summary.length).toBeLessThanOrEqual(800)
    expect(summary).toContain('3000 tool calls: 3000 run.')
    expect(summary).toContain('- Migrate the fleet, job J-0 first.')
    expect(summary).toContain('- Next batch 3000.')
    expect(summary).toMatch(/Tools \(\d+ of 3000\):/)
    expect(summary).toContain('- run(job=J-3000) → xxx')
    expect(facts.length).toBeLessThanOrEqual(10)
    const defaults = await patternSummarizer().summarize(items, { tier: 'episodic' })
    expect(defaults.summary.length).toBeLessThanOrEqual(1_200)
    const scope = await patternSummarizer().summarize(items, { tier: 'scope' })
    expect(scope.summary.length).toBeLessThanOrEqual(600)
    expect(scope.summary.length).toBeGreaterThan(500)
  })

  it('is never longer than a short input than its floor of 300 characters', async () => {
    const { summary } = await patternSummarizer().summarize([say('user', 'Go')], { tier: 'scope' })
    expect(summary).toBe('User:\n- Go')
  })

  it('refuses invalid options with STRATA_INVALID_OPTIONS', () => {
    for (const options of [{ maxChars: 199 }, { maxScopeChars: 0 }, { maxFacts: -1 }, { maxActions: 1.5 }]) {
      let caught: unknown
      try {
        patternSummarizer(options)
      } catch (error) {
        caught = error
      }
      expect(StrataError.isInstance(caught, 'STRATA_INVALID_OPTIONS')).toBe(true)
    }
  })
})

const words = fc.constantFrom(
  'I prefer',
  'my name is',
  'call me',
  'never',
  'use',
  'Ana Lima',
  'ZX-4471',
  'order',
  'A-1234',
  'ana@example.com',
  'https://example.com/a?b=1',
  'src/index.ts',
  '49.90 EUR',
  '2026-11-26',
  '#12345',
  '08d1fdf8-5a2b-4c11-9f3e-7d0c2b9a6e15',
  'mem_01JD4K7Q9X',
  'call_Qm81sLx2',
  'STRATA_INVALID_SCOPE',
  'error E-0451',
  'Sure, here is',
  'the',
  'tea',
  '.',
  '!',
  '\n',
  '  ',
)
const sentence = fc.oneof(
  fc.array(words, { maxLength: 12 }).map((parts) => parts.join(' ')),
  fc.string({ maxLength: 60 }),
)
const scalar = fc.oneof(sentence, fc.integer(), fc.boolean(), fc.constant(null))
const output = fc.oneof(
  sentence,
  fc.dictionary(
    fc.constantFrom('orderId', 'name', 'status', 'total', 'note', 'a b', 'x: y', 'items'),
    fc.oneof(scalar, fc.array(scalar, { maxLength: 3 })),
  ),
)
const part = fc.oneof(
  sentence.map((text) => ({ role: 'user' as const, content: [{ type: 'text' as const, text }] })),
  sentence.map((text) => ({ role: 'assistant' as const, content: [{ type: 'text' as const, text }] })),
  fc.tuple(fc.constantFrom('lookup', 'run', 'a:b'), output, fc.boolean()).map(([toolName, out, isError]) => ({
    role: 'tool' as const,
    content: [{ type: 'tool-result' as const, toolCallId: 'p', toolName, output: out as JsonValue, isError }],
  })),
  fc.tuple(fc.constantFrom('lookup', 'run'), sentence).map(([toolName, text]) => ({
    role: 'assistant' as const,
    content: [{ type: 'tool-call' as const, toolCallId: 'p', toolName, input: { text } }],
  })),
  // A summary among the items (a long-term summary's inputs): a pattern summary's shape, or any text.
  fc
    .tuple(
      fc.constantFrom('', 'Identifiers: A-1, B-2\nUser:\n- ', 'Tools (1 of 2):\n- ', '## Decisions\n- '),
      sentence,
    )
    .map(([head, text]) => ({ summary: `${head}${text}` })),
)
const itemOf = (
  entry: { summary: string } | { role: 'user' | 'assistant' | 'tool'; content: MessagePart[] },
) => ('summary' in entry ? summaryItem(entry.summary) : message(entry.role, entry.content))

/** The user's and the answers' words, whitespace collapsed: where a fact's identifiers must be found. */
function haystack(items: readonly Item[]): string[] {
  const out: string[] = []
  const walk = (value: JsonValue) => {
    if (typeof value === 'string') out.push(value.replace(/\s+/g, ' '))
    else if (typeof value === 'number') out.push(String(value))
    else if (Array.isArray(value)) value.forEach(walk)
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk)
  }
  for (const item of items) {
    if (item.type !== 'message') continue
    for (const piece of item.content) if (piece.type === 'text') walk(piece.text)
  }
  return out
}

describe('patternSummarizer properties', () => {
  it("is bounded, deterministic, each fact once, and every fact's identifiers come from the user's or the answers' words", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(part, { maxLength: 30 }),
        fc.integer({ min: 200, max: 2_000 }),
        fc.integer({ min: 0, max: 12 }),
        fc.constantFrom('scope', 'short-term', 'long-term', 'episodic' as const),
        async (parts, maxChars, maxFacts, tier) => {
          const items = parts.map(itemOf)
          const summarizer = patternSummarizer({ maxChars, maxScopeChars: maxChars, maxFacts })
          const first = await summarizer.summarize(items, { tier })
          expect(await summarizer.summarize(items, { tier })).toEqual(first)
          expect(first.summary.length).toBeLessThanOrEqual(maxChars)
          expect(first.summary.length).toBeGreaterThan(0)
          expect(first.facts.length).toBeLessThanOrEqual(maxFacts)
          const keys = first.facts.map((fact) => normalizeFactText(fact.text))
          expect(new Set(keys).size).toBe(keys.length)
          // Facts come from what the user and the answers said, never from a tool's own output, and
          // hold no generated id or error code.
          const inputs = haystack(items)
          for (const fact of first.facts) {
            expect(fact.text.length).toBeGreaterThan(0)
            expect(fact.text.length).toBeLessThanOrEqual(FACT_CHARS)
            expect(holdsGeneratedId(fact.text)).toBe(false)
            findIdentifiers(fact.text, (identifier) => {
              expect(inputs.some((input) => input.includes(identifier))).toBe(true)
            })
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})
