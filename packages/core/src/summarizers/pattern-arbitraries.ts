import fc from 'fast-check'
import type { Item, JsonValue } from '../items'
import type { PatternSummarizerOptions } from './pattern-summarizer'
import type { SummarizeOptions } from './summarizer'

/*
 * Generated input for the pattern summarizer's property tests (test-only: nothing else imports it):
 * texts made of the words its rules look for (names, identifiers, values, generated ids, pronouns,
 * openers, punctuation in ASCII and CJK, every kind of white space), and JSON values beyond the walk's
 * limits.
 */

const WORDS = [
  ...'I i my My me our we We you You your Your the The a an and with from to is am have do go call Call Book use Use'.split(
    ' ',
  ),
  ...'Ana Lima Ben Ortiz Émile Øre İstanbul ǅemal Ölz café ß Dr. Mr. St. vs. e.g. No. x. I-95 read-me.md'.split(
    ' ',
  ),
  ...'PO-1234 ZX-4471 #12345 $49.90 €12 £3 49.90 1,240.00 EUR kg 12% 2024-05-01 2024-05-01T10:30Z 10:30'.split(
    ' ',
  ),
  ...'https://x.io/a?b=1 me@example.com src/app/main.ts ./a/b.json SK801 BA117 INV_2024_7 (ZX-4471), A-1234’s'.split(
    ' ',
  ),
  ...'550e8400-e29b-41d4-a716-446655440000 aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee mem_01JD4K7Q9X call_Qm81sLx2'.split(
    ' ',
  ),
  ...'STRATA_INVALID_SCOPE ERR_MODULE_NOT_FOUND HTTP_503 ECONNREFUSED EPIPE EXXON error Error: errors err E42'.split(
    ' ',
  ),
  ...'deadbeef1234abcd aB3dEfGhIjKlMnOp9 ab_1234 row_3_0 memory_query enter_scope'.split(' '),
  ...[
    "I'm",
    "I'd",
    "I've",
    "I'll",
    "i'm",
    'myself',
    "we're",
    "let's",
    "Let's",
    "don't",
    'Thanks.',
    'OK,',
    'Sure!',
  ],
  ...[
    '你好',
    '我叫王伟。',
    '我的订单',
    'こんにちは',
    '안녕하세요',
    '“quoted”',
    '‘single’',
    '«x»',
    '**Team**:',
    '「x」',
  ],
  ...[
    '- ',
    '1.',
    '##',
    '…',
    '...',
    '!!',
    '?!',
    ':)',
    '(',
    ')',
    '"',
    "'",
    '’s',
    'x'.repeat(210),
    'Ab'.repeat(120),
  ],
]
const GAPS = [
  ' ',
  ' ',
  ' ',
  '  ',
  '\n',
  '\n\n',
  '\t',
  '\r\n',
  '\u00a0',
  '\u3000',
  '\u2028',
  '\ufeff',
  '. ',
  '! ',
  '? ',
]
const MORE_GAPS = ['… ', '。', '！', '？', ', ', '; ', ': ', '，', '、', '', '"', "' ", ') ', ' (']

/** Texts: words and gaps, any characters, and long ones past the 4 000 characters read. */
export const textArbitrary: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...GAPS, ...MORE_GAPS)), { maxLength: 40 })
      .map((pairs) => pairs.map(([word, gap]) => word + gap).join('')),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc.string({
      unit: fc.constantFrom(...' \n\t\u00a0aB1.-_@/#$€:,?!\'"()EReé你。x'.split('')),
      maxLength: 60,
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...WORDS), fc.constantFrom(...GAPS), fc.integer({ min: 100, max: 1_500 }))
      .map(([word, gap, times]) => (word + gap).repeat(times)),
  },
)

const scalarArbitrary: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 4, arbitrary: textArbitrary },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
)
const keyArbitrary = fc.constantFrom(
  'id',
  'total',
  'note',
  'action',
  'name',
  'rows',
  '',
  'a',
  'x'.repeat(50),
  'é',
)
const nestedArbitrary = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalarArbitrary, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 8 }),
  object: fc.dictionary(keyArbitrary, tie('value'), { maxKeys: 6 }),
})).value as fc.Arbitrary<JsonValue>

/** Rows past the walk's 64 and 400 nodes, as an array, an object's field, or beside a count. */
const rowsArbitrary: fc.Arbitrary<JsonValue> = fc
  .tuple(
    fc.integer({ min: 0, max: 700 }),
    fc.nat(3),
    fc.array(scalarArbitrary, { minLength: 1, maxLength: 4 }),
  )
  .map(([count, shape, values]): JsonValue => {
    const rows: JsonValue[] = Array.from({ length: count }, (_, index) =>
      shape === 0
        ? values[index % values.length]!
        : { id: `row_${index}`, total: `${index}.00 EUR`, note: values[index % values.length]! },
    )
    return shape === 1 ? rows : shape === 2 ? { rows, count } : { rows }
  })

/** JSON values: nested ones of any shape, and large ones. */
export const jsonArbitrary: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 4, arbitrary: nestedArbitrary },
  { weight: 1, arbitrary: rowsArbitrary },
)

const callId = fc.constantFrom('c1', 'c2', 'c3', 'c4')
const toolName = fc.constantFrom('lookup', 'memory_query', 'create_shape', 'x'.repeat(45))
const partArbitrary = fc.oneof(
  { weight: 6, arbitrary: fc.record({ type: fc.constant('text' as const), text: textArbitrary }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('reasoning' as const), text: textArbitrary }) },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('file' as const),
      mediaType: fc.constant('image/png'),
      data: fc.constant('AA=='),
      filename: fc.constantFrom('a.png', 'report final.pdf', ''),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('tool-call' as const),
      toolCallId: callId,
      toolName,
      input: fc.oneof(jsonArbitrary, fc.record({ action: textArbitrary, id: textArbitrary })),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('tool-result' as const),
      toolCallId: callId,
      toolName,
      output: jsonArbitrary,
      isError: fc.boolean(),
    }),
  },
)

/** Item lists: messages of every role and part, scope openings, summaries (pattern-like or not), facts, transitions. */
export const itemsArbitrary: fc.Arbitrary<Item[]> = fc
  .array(
    fc.oneof(
      {
        weight: 10,
        arbitrary: fc.record({
          type: fc.constant('message'),
          role: fc.constantFrom('user', 'assistant', 'tool', 'system', 'user', 'assistant'),
          content: fc.array(partArbitrary, { maxLength: 4 }),
        }),
      },
      {
        weight: 1,
        arbitrary: textArbitrary.map((title) => ({
          type: 'message',
          role: 'user',
          content: [{ type: 'text', text: title }],
          scope: { title },
        })),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            textArbitrary,
            fc.array(textArbitrary, { maxLength: 3 }),
            fc.array(textArbitrary, { maxLength: 4 }),
          )
          .map(([head, identifiers, lines]) => ({
            type: 'summary',
            tier: 'episodic',
            text: [
              head,
              `Identifiers: ${identifiers.join(', ')}`,
              'User (2 of 5):',
              ...lines.map((line) => `- ${line}`),
            ]
              .concat(['Tools:', '- none', '## Decisions', ...lines])
              .join('\n'),
            range: { fromSeq: 1, toSeq: 2 },
            salience: 0.5,
          })),
      },
      {
        weight: 1,
        arbitrary: textArbitrary.map((text) => ({
          type: 'fact',
          text,
          tags: [],
          confidence: 1,
          salience: 1,
        })),
      },
    ),
    { maxLength: 24 },
  )
  .map((items) =>
    items.map(
      (item, index) =>
        ({
          id: `i${index + 1}`,
          seq: index + 1,
          ts: index + 1,
          level: 'global',
          turnId: 'turn_0001',
          ...item,
        }) as Item,
    ),
  )

/** The summarizer's options and a call's, `knownFacts` in either wording. */
export const summarizeArbitrary = fc.record({
  options: fc.record({
    maxActions: fc.integer({ min: 0, max: 15 }),
    maxChars: fc.integer({ min: 200, max: 3_000 }),
    maxScopeChars: fc.integer({ min: 200, max: 1_000 }),
    maxFacts: fc.integer({ min: 0, max: 12 }),
  }),
  call: fc.record(
    {
      tier: fc.constantFrom('scope', 'short-term', 'long-term', 'episodic'),
      knownFacts: fc.array(
        fc.oneof(
          textArbitrary,
          textArbitrary.map((text) => `User said: "${text}"`),
        ),
        {
          maxLength: 4,
        },
      ),
      scope: fc.record({
        title: textArbitrary,
        level: fc.constantFrom('task', 'project'),
        outcome: fc.constantFrom('complete', 'cancelled', 'aborted'),
      }),
    },
    { requiredKeys: ['tier'] },
  ),
}) as fc.Arbitrary<{ options: PatternSummarizerOptions; call: SummarizeOptions }>
