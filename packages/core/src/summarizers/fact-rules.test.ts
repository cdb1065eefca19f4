import { describe, expect, it } from 'vitest'
import type { Item, JsonValue, MessagePart } from '../items'
import { answerFact, holdsGeneratedId, userFact } from './fact-rules'
import { patternSummarizer } from './pattern-summarizer'

let seq = 0
const message = (role: 'user' | 'assistant' | 'tool', content: MessagePart[]): Item => ({
  id: `f${++seq}`,
  seq,
  ts: seq,
  level: 'global',
  turnId: 'turn_0001',
  type: 'message',
  role,
  content,
})
const say = (role: 'user' | 'assistant', text: string) => message(role, [{ type: 'text', text }])
const call = (toolName: string, input: JsonValue, toolCallId: string) =>
  message('assistant', [{ type: 'tool-call', toolCallId, toolName, input }])
const result = (toolName: string, output: JsonValue, toolCallId: string, isError = false) =>
  message('tool', [{ type: 'tool-result', toolCallId, toolName, output, ...(isError ? { isError } : {}) }])

describe('fact rules', () => {
  // The facts issue 24 found in a real run: error codes, memory tool ids, every invoice of a result,
  // and a one-off instruction, each a fact of its own.
  it('issue 24: no error codes, memory tool ids, unused result values or tool instructions among the facts', async () => {
    const items = [
      say('user', "I'm reconciling November. Use the stored ledger. What is the total of invoice PO-7003?"),
      call('enter_scope', { level: 'task', title: 'Reconcile November' }, 'call_s1'),
      result(
        'enter_scope',
        { error: { code: 'STRATA_INVALID_SCOPE', message: 'already in task' } },
        'call_s1',
        true,
      ),
      call('memory_query', { text: 'ledger' }, 'call_m1'),
      result(
        'memory_query',
        { results: [{ id: '08d1fdf8-5a2b-4c11-9f3e-7d0c2b9a6e15' }, { id: 'mem_7Hq2Lx9Pz' }] },
        'call_m1',
      ),
      call('fetch_invoice', { batch: '2026-11' }, 'call_f1'),
      result(
        'fetch_invoice',
        Array.from({ length: 6 }, (_, index) => `PO-700${index + 1} ${(index + 1) * 110}.00 EUR`).join('\n'),
        'call_f1',
      ),
      say('assistant', 'Sure! Invoice PO-7003 totals 1,240.00 EUR. Is there anything else I can help with?'),
    ]
    const { facts } = await patternSummarizer().summarize(items, { tier: 'episodic' })
    expect(facts.map((fact) => fact.text)).toEqual([
      'User is reconciling November',
      'Invoice PO-7003 totals 1,240.00 EUR',
    ])
  })

  it('keeps the option the user chose, not the list of options the answer offered', async () => {
    const items = [
      say('user', 'Book me on the morning flight from Oslo to London on 2026-12-04.'),
      say('assistant', 'Two morning options: BA763 at 07:35 (1,890 NOK) and SK801 at 09:10 (1,640 NOK).'),
      say('user', 'SK801.'),
      say('assistant', 'Booked: SK801 on 2026-12-04 at 09:10, booking reference K7QW2Z.'),
    ]
    const { facts } = await patternSummarizer().summarize(items, { tier: 'episodic' })
    expect(facts.map((fact) => fact.text)).toEqual([
      'User asked: book the user on the morning flight from Oslo to London on 2026-12-04',
      'User chose: SK801',
      'Booked: SK801 on 2026-12-04 at 09:10, booking reference K7QW2Z',
    ])
  })

  it.each([
    ['I prefer metric units.', 'User prefers metric units'],
    ['Hi, my name is Ana Lima.', "User's name is Ana Lima"],
    ['Thanks. Always call me Ana.', 'User goes by Ana'],
    ["My wife's name is Keiko.", "User's wife is Keiko"],
    [
      "I can't train on Wednesdays, I coach my son's team.",
      "User can't train on Wednesdays, they coach their son's team",
    ],
    ['I need the VPN every morning.', 'User needs the VPN every morning'],
    ["I'm allergic to penicillin, please note that.", 'User is allergic to penicillin'],
    ['Our approval limit is 5,000 EUR.', 'Approval limit is 5,000 EUR'],
    ["We're moving the repo from Jest to Vitest.", 'Moving the repo from Jest to Vitest'],
    ["Let's keep the tests next to the sources.", 'Decided: keep the tests next to the sources'],
    [
      'Use the finance warehouse, not the product DB.',
      'User decided: use the finance warehouse, not the product DB',
    ],
    ['Book me on the flight on 2026-12-04.', 'User asked: book the user on the flight on 2026-12-04'],
    ['No meetings before 10:00 for me, please.', 'No meetings before 10:00 for the user'],
    ['Remember that our competitor is Northwind Traders.', 'Competitor is Northwind Traders'],
    ['我喜欢送货上门。', '我喜欢送货上门'],
  ])('words %j as %j', (sentence, fact) => {
    expect(userFact(sentence)?.text).toBe(fact)
  })

  it('takes a short reply naming what the answer offered as the choice, not an acknowledgement or a new request', () => {
    const offer = 'two options: ba763 at 07:35 and sk801 at 09:10. a celadon vase or a raku tea bowl?'
    expect(userFact('SK801.', { offer })?.text).toBe('User chose: SK801')
    expect(userFact('The tea bowl.', { offer })?.text).toBe('User chose: the tea bowl')
    expect(userFact('Raise the timeout to 30 minutes.', { offer })?.text).toBe(
      'Raise the timeout to 30 minutes',
    )
    for (const reply of [
      'Good.',
      'Do it.',
      'Three.',
      'Take those three.',
      'Use that.',
      'ok thanks, that is all!',
    ])
      expect(userFact(reply, { offer }), reply).toBeUndefined()
  })

  it.each([
    'Can we use the office printer on floor 3?',
    'Thanks, you always save me!',
    'Use the stored ledger.',
    'Check your memory again.',
    'Hey there!',
    'Page the payments team if it is down.',
    'The run 08d1fdf8-5a2b-4c11-9f3e-7d0c2b9a6e15 failed with STRATA_INVALID_SCOPE.',
    '你好，',
  ])('gives no fact for %j', (sentence) => {
    expect(userFact(sentence)).toBeUndefined()
  })

  it('keeps a sentence with a capitalised name starting with E: only POSIX error names are error codes', () => {
    expect(userFact('I work at EXXON in Houston.')).toBeDefined()
    expect(userFact('I prefer the EUROSTAR to flying.')).toBeDefined()
    expect(userFact('The upload failed with ECONNRESET again.')).toBeUndefined()
  })

  it('keeps an answer sentence that tells a value, worded about the user, and drops boilerplate and error codes', () => {
    expect(answerFact('Done: your refund RF-30419 of 129.00 EUR is on its way to you.')?.text).toBe(
      "User's refund RF-30419 of 129.00 EUR is on its way to the user",
    )
    expect(answerFact('好的，您的订单 CN-20261188 正在运输中。')?.text).toBe(
      '您的订单 CN-20261188 正在运输中',
    )
    expect(answerFact('Sure, here is what I found.')).toBeUndefined()
    expect(answerFact('Happy to help!')).toBeUndefined()
    expect(answerFact('PRN-F3-01 is in error E-0451 with 17 jobs waiting.')).toBeUndefined()
    expect(answerFact('Stored as mem_01JD4K7Q9X.')).toBeUndefined()
  })

  it.each([
    ['08d1fdf8-5a2b-4c11-9f3e-7d0c2b9a6e15', true],
    ['mem_01JD4K7Q9X', true],
    ['call_Qm81sLx2', true],
    ['toolu_01HxY7Vb3kT9', true],
    ['4bf92f3577b34da6a3ce929d0e0e4736', true],
    ['STRATA_INVALID_SCOPE', true],
    ['ECONNREFUSED', true],
    ['ETIMEDOUT after 30 s', true],
    ['I work at EXXON in Houston', false],
    ['I prefer the EUROSTAR to flying', false],
    ['HTTP_503', true],
    ['error E-0451', true],
    ['order A-1234', false],
    ['tracking code ZX-4471', false],
    ['INV-2026-0412', false],
    ['src/cart/checkout.test.ts', false],
  ])('%j holds a generated id or an error code: %j', (text, generated) => {
    expect(holdsGeneratedId(text)).toBe(generated)
  })
})
