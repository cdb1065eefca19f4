import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { ESTIMATOR_CATEGORIES, type EstimatorCategory, estimatorSamples } from '../testing/estimator-samples'
import { gptTokenizer } from '../tokenizer'
import { tokenSamples } from './testing/token-samples'
import { tokenEstimator } from './token-estimator'

const estimator = tokenEstimator()
const o200k = gptTokenizer({ encoding: 'o200k_base' })
const samples = estimatorSamples()

/** The target: never under `o200k_base`, at most this many times it, per category. */
const TARGET = 1.15

/**
 * The most the estimate exceeds `o200k_base` on a corpus sample today, per category, tuned and
 * held-out samples alike (measured: `cd bench && pnpm start tokens`). Where a cap is above
 * {@link TARGET}, the target is not reached yet: the held-out samples reach 1.17 on a Go file (tabs),
 * French prose and a flight search and 1.21 on a git diff, the tuned ones 1.16 on JSON.
 * CJK cannot get near it without knowing which pairs of characters the vocabulary merges: formal
 * Chinese spends 0.64 o200k tokens a Han character and narrative Chinese 1.04, in clauses of the same
 * shape; the pairs `o200k_base` holds as one token explain the difference exactly, classes of single
 * characters do not (see the bench's notes). So the tuned samples reach 1.47, the held-out ones 1.49.
 */
const caps: Record<EstimatorCategory, number> = {
  'tool-results': 1.22,
  json: 1.16,
  code: 1.17,
  prose: 1.17,
  cjk: 1.49,
}

/** The samples of tool results, JSON, code and prose that are over {@link TARGET} today. */
const OVER_TARGET = new Set([
  '28-git-diff.txt',
  '16-flight-search.txt',
  '18-inventory-compact.txt',
  '05-chart-series.txt',
  '04-i18n-messages.txt',
  '28-go-worker.txt',
  '16-french-news.txt',
  '20-french-guide.txt',
])

/** The ratio `estimate / o200k_base` of one text. */
const ratioOf = (text: string): number => estimator.count(text) / o200k.count(text)

describe('tokenEstimator on the estimator corpus', () => {
  it('has at least 15 tuned and 5 held-out samples of at least 200 o200k tokens in every category', () => {
    for (const category of ESTIMATOR_CATEGORIES) {
      const inCategory = samples.filter((sample) => sample.category === category)
      expect(inCategory.filter((sample) => !sample.heldOut).length, category).toBeGreaterThanOrEqual(15)
      expect(inCategory.filter((sample) => sample.heldOut).length, category).toBeGreaterThanOrEqual(5)
      for (const sample of inCategory)
        expect(o200k.count(sample.text), sample.name).toBeGreaterThanOrEqual(200)
    }
  })

  it.each(ESTIMATOR_CATEGORIES)('never undercounts o200k_base on %s', (category) => {
    for (const sample of samples.filter((each) => each.category === category)) {
      expect(estimator.count(sample.text), sample.name).toBeGreaterThanOrEqual(o200k.count(sample.text))
    }
  })

  it.each(ESTIMATOR_CATEGORIES.filter((category) => category !== 'cjk'))(
    'stays within the target on every %s sample but those named over it',
    (category) => {
      for (const sample of samples.filter((each) => each.category === category)) {
        const ratio = ratioOf(sample.text)
        // A named sample that reaches the target leaves the list, so that it cannot slip back.
        if (OVER_TARGET.has(sample.name)) expect(ratio, sample.name).toBeGreaterThan(TARGET)
        else expect(ratio, sample.name).toBeLessThanOrEqual(TARGET)
      }
    },
  )

  it.each(ESTIMATOR_CATEGORIES)('stays within its cap of o200k_base on %s', (category) => {
    for (const sample of samples.filter((each) => each.category === category)) {
      expect(ratioOf(sample.text), sample.name).toBeLessThanOrEqual(caps[category])
    }
  })

  it.each(ESTIMATOR_CATEGORIES.filter((category) => category !== 'cjk'))(
    'overcounts the median %s sample by less than 1.15× (the old estimator: 1.26–1.43×)',
    (category) => {
      const ratios = samples.filter((sample) => sample.category === category).map((s) => ratioOf(s.text))
      ratios.sort((a, b) => a - b)
      expect(ratios[ratios.length >> 1]).toBeLessThan(1.15)
    },
  )
})

/** How far above `o200k_base` the estimate may go on the older, shorter samples, per category. */
const legacyCaps: Record<string, number> = {
  prose: 1.3,
  code: 1.3,
  json: 1.3,
  chinese: 1.7,
  japanese: 1.9,
  korean: 1.6,
  emoji: 2,
  mixed: 1.9,
  digits: 1.4,
  blobs: 1.3,
  whitespace: 2.3,
  'other scripts': 3.7,
}
// Below this many tokens the one token of headroom dominates the ratio, so caps start here.
const CAPPED_FROM_TOKENS = 16
const legacyCategories = Object.keys(tokenSamples)

describe('tokenEstimator', () => {
  it('has a cap for every legacy sample category', () => {
    expect(Object.keys(legacyCaps).sort()).toEqual([...legacyCategories].sort())
  })

  it.each(legacyCategories)('never undercounts o200k_base on the legacy %s samples', (category) => {
    for (const text of tokenSamples[category]!) {
      expect(estimator.count(text), text.slice(0, 80)).toBeGreaterThanOrEqual(o200k.count(text))
    }
  })

  it.each(legacyCategories)('does not overcount the legacy %s samples beyond its cap', (category) => {
    for (const text of tokenSamples[category]!) {
      const exact = o200k.count(text)
      if (exact < CAPPED_FROM_TOKENS) continue
      expect(estimator.count(text) / exact, text.slice(0, 80)).toBeLessThanOrEqual(legacyCaps[category]!)
    }
  })

  it('counts digit runs in groups of three, like o200k_base, plus headroom of up to four tokens', () => {
    for (const length of [1, 2, 3, 4, 10, 100, 1000]) {
      const digits = '7'.repeat(length)
      expect(estimator.count(digits)).toBe(Math.ceil(length / 3) + Math.min(4, length))
      expect(o200k.count(digits)).toBe(Math.ceil(length / 3))
    }
  })

  it('never undercounts o200k_base on runs of spaces, newlines or tabs up to 3,000 long', () => {
    // o200k_base's longest whitespace tokens are 128 spaces and 16 newlines: longer runs cost more.
    // A run between words, at the start or the end, alone: each placement tokenizes differently.
    // Every length to 300; past it, each side of every 128th (a multiple of 16 too) and every 113th:
    // o200k_base takes about 5 ms a count of a run that long, and every length was half a minute.
    const lengths = Array.from({ length: 300 }, (_, index) => index + 1)
    for (let length = 301; length <= 3000; length++) {
      if ([127, 0, 1].includes(length % 128) || length % 113 === 0) lengths.push(length)
    }
    for (const whitespace of [' ', '\n', '\t', '\r\n']) {
      for (const length of lengths) {
        const run = whitespace.repeat(length)
        for (const text of [`a${run}}`, `${run}x`, `{${run}`, run]) {
          const counted = estimator.count(text)
          if (counted < o200k.count(text)) expect({ whitespace, length, text, counted }).toBeUndefined()
        }
      }
    }
    expect(o200k.count(' '.repeat(1000))).toBe(9)
    expect(o200k.count('\n'.repeat(1000))).toBe(63)
  })

  it('is named estimator, counts empty text as 0 and is deterministic', () => {
    expect(estimator.name).toBe('estimator')
    expect(estimator.count('')).toBe(0)
    const text = tokenSamples.mixed!.at(-1)!
    expect(tokenEstimator().count(text)).toBe(estimator.count(text))
  })

  it('handles lone surrogates, control characters and special-token strings', () => {
    for (const text of ['\ud800', 'a\udc00b', '\u0000\u0001\u007f', '<|endoftext|>', ' \u000b\f ']) {
      expect(estimator.count(text)).toBeGreaterThanOrEqual(o200k.count(text))
    }
  })

  it('scales by the multiplier', () => {
    const text = tokenSamples.prose![0]!
    const plain = estimator.count(text)
    const doubled = tokenEstimator({ multiplier: 2 }).count(text)
    expect(doubled).toBeGreaterThan(2 * (plain - 1))
    expect(doubled).toBeLessThanOrEqual(2 * plain)
  })

  it('rejects a multiplier that is not a positive finite number', () => {
    for (const multiplier of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => tokenEstimator({ multiplier })).toThrow(StrataError)
      expect(() => tokenEstimator({ multiplier })).toThrow(
        expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' }),
      )
    }
  })
})

const printable = Array.from({ length: 95 }, (_, index) => String.fromCharCode(32 + index)).join('')
const letters = 'abcdefghijklmnopqrstuvwxyz'
/** Each category's alphabet, for strings of random characters of any length. */
const alphabets: Record<Exclude<EstimatorCategory, 'cjk'>, string> = {
  'tool-results': `${printable}\n\n\t`,
  json: `${letters}${letters.toUpperCase()}0123456789 \n{}[]:,"._-+/@`,
  code: `${letters}${letters.toUpperCase()}0123456789 \n\t{}()[];:.,=<>+-*/&|!?'"\`_$#@%^~\\`,
  prose: `${letters}${letters}${letters.toUpperCase()}     .,;:!?'"-()äöüßéèêàçôîûëœÄÖÜÉ`,
}

/**
 * CJK is generated from phrases of the corpus (a clause up to and with its punctuation), at least 25
 * of them (about 200 tokens) in random order, not from random characters: a random sequence of even
 * the commonest ideographs costs `o200k_base` about 1.05 tokens a character against 0.7–1.0 in real
 * text, and no estimate without a table of characters can cover the first and stay near the second.
 */
const cjkPhrases = samples
  .filter((sample) => sample.category === 'cjk')
  .flatMap((sample) => sample.text.match(/[^、。，！？：；「」（）\n]+[、。，！？：；「」（）\n]*/gu) ?? [])

/**
 * Random characters of every alphabet are covered up to 12 of them. Longer strings of random
 * characters are covered where the estimator holds on them (measured on 2,000 draws per alphabet with
 * lengths from 13 to 3,000): the JSON alphabet from 13 characters on (no draw under `o200k_base`); the
 * printable (tool results) and code alphabets from 600 on (none under there; from 13 to 600 one draw
 * in about 2,000 comes out a token or two under, where a run of random capitals splits into pairs
 * that the estimate, fitted to acronyms and constants, expects to merge). The prose alphabet (a
 * letter in three accented or upper case) is not covered beyond 12: from 50 to 3,000 characters one
 * draw in 25 comes out under `o200k_base`, by up to a tenth, because accented and upper-case letters
 * in the middle of words of random letters split them where French and German words merge. Realistic
 * long texts are covered below by the corpus's own words in random order.
 */
const RANDOM_CHARACTERS = 12
const longRandom: Partial<Record<keyof typeof alphabets, { minLength: number }>> = {
  'tool-results': { minLength: 600 },
  json: { minLength: 13 },
  code: { minLength: 600 },
}
const LONG_RANDOM_CHARACTERS = 3000

describe('tokenEstimator on generated text', () => {
  it.each(Object.keys(alphabets))(
    'never undercounts o200k_base on up to 12 random %s characters',
    (category) => {
      const alphabet = [...alphabets[category as keyof typeof alphabets]]
      fc.assert(
        fc.property(
          fc.string({ unit: fc.constantFrom(...alphabet), maxLength: RANDOM_CHARACTERS, size: 'max' }),
          (text) => {
            expect(estimator.count(text)).toBeGreaterThanOrEqual(o200k.count(text))
          },
        ),
        { numRuns: 300 },
      )
    },
  )

  it.each(Object.keys(longRandom))(
    'never undercounts o200k_base on long strings of random %s characters, up to 3,000',
    (category) => {
      const alphabet = [...alphabets[category as keyof typeof alphabets]]
      const { minLength } = longRandom[category as keyof typeof longRandom]!
      // Lengths are drawn evenly up to the maximum (no bias towards short strings), characters likewise.
      const text = fc.noBias(
        fc.string({
          unit: fc.constantFrom(...alphabet),
          minLength,
          maxLength: LONG_RANDOM_CHARACTERS,
          size: 'max',
        }),
      )
      fc.assert(
        fc.property(text, (drawn) => {
          expect(drawn.length).toBeGreaterThanOrEqual(minLength)
          expect(estimator.count(drawn)).toBeGreaterThanOrEqual(o200k.count(drawn))
        }),
        { numRuns: 200 },
      )
    },
  )

  /**
   * Texts of at least 200 tokens rebuilt from a category's own words in random order. Covered for tool
   * results and JSON (no draw under `o200k_base` in 1,500 of each). Not for code and prose: one draw
   * in about 600 comes out under, by 1–2%, when the draw piles up German compounds or rare
   * identifiers that cost more than their letters' pairs say (real texts balance them with common
   * words, which the draws also hold, but not always enough of).
   */
  it.each(['tool-results', 'json'] as const)(
    'never undercounts o200k_base on 100 to 600 words of the %s samples in random order',
    (category) => {
      // A word is a run of non-space characters with the whitespace before it: lines, indentation and
      // punctuation come along, so that the text keeps the category's shapes in a new order.
      const pieces = samples
        .filter((sample) => sample.category === category)
        .flatMap((sample) => sample.text.match(/\s*\S+/gu) ?? [])
      const piece = fc.noBias(fc.nat({ max: pieces.length - 1 })).map((index) => pieces[index]!)
      fc.assert(
        fc.property(fc.noBias(fc.array(piece, { minLength: 100, maxLength: 600, size: 'max' })), (drawn) => {
          const text = drawn.join('')
          expect(estimator.count(text)).toBeGreaterThanOrEqual(o200k.count(text))
        }),
        { numRuns: 200 },
      )
    },
  )

  it('counts JSON lines of UUIDs and ISO timestamps within 1.1× of o200k_base, never under it', () => {
    // Hex letters after digits and the `T` and `Z` of timestamps are a token each; charged as the start
    // of a word after a digit, such lines came out at up to 1.2×.
    const row = fc
      .tuple(fc.uuid(), fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }))
      .map(([id, date]) => `{"id":"${id}","at":"${date.toISOString()}"}`)
    fc.assert(
      fc.property(fc.array(row, { minLength: 10, maxLength: 40 }), (rows) => {
        const text = rows.join('\n')
        expect(estimator.count(text)).toBeGreaterThanOrEqual(o200k.count(text))
        expect(ratioOf(text)).toBeLessThanOrEqual(1.1)
      }),
      { numRuns: 200 },
    )
  })

  it('never undercounts o200k_base on CJK phrases of the corpus in random order', () => {
    const phrase = fc.noBias(fc.nat({ max: cjkPhrases.length - 1 })).map((index) => cjkPhrases[index]!)
    fc.assert(
      fc.property(fc.noBias(fc.array(phrase, { minLength: 25, maxLength: 400, size: 'max' })), (phrases) => {
        const text = phrases.join('')
        expect(estimator.count(text)).toBeGreaterThanOrEqual(o200k.count(text))
      }),
      { numRuns: 200 },
    )
  })

  it('never undercounts o200k_base on CJK phrases whose punctuation is spaces or line breaks, as in chat', () => {
    // The fit before charged the clause at its punctuation: the same phrases with spaces undercounted
    // narrative Chinese by a fifth.
    const phrase = fc
      .tuple(fc.nat({ max: cjkPhrases.length - 1 }), fc.constantFrom(' ', '\n'))
      .map(([index, separator]) => cjkPhrases[index]!.replace(/[、。，！？：；「」（）\n]+/gu, separator))
    fc.assert(
      fc.property(fc.noBias(fc.array(phrase, { minLength: 25, maxLength: 400, size: 'max' })), (phrases) => {
        const text = phrases.join('')
        expect(estimator.count(text)).toBeGreaterThanOrEqual(o200k.count(text))
      }),
      { numRuns: 200 },
    )
  })

  /**
   * Arbitrary strings, including all of Unicode, at fast-check's default size (up to about 10
   * characters, whatever `maxLength` says; see {@link RANDOM_CHARACTERS} for longer ones). Not `fc.json()`: its keys and strings are random
   * printable characters between `":null,"` separators, which `o200k_base` splits about 1 in 1000
   * times into a token or two more than the estimate; covering them would cost real JSON 3–4%.
   */
  const arbitraries = {
    'printable ASCII': fc.string({ maxLength: 200 }),
    'any ASCII': fc.string({ unit: 'binary-ascii', maxLength: 200 }),
    graphemes: fc.string({ unit: 'grapheme', maxLength: 100 }),
    'any code points': fc.string({ unit: 'binary', maxLength: 100 }),
    'pretty JSON': fc.jsonValue().map((value) => JSON.stringify(value, null, 2)),
  }

  it.each(Object.keys(arbitraries))('never undercounts o200k_base on %s', (name) => {
    const arbitrary = arbitraries[name as keyof typeof arbitraries]
    fc.assert(
      fc.property(arbitrary, (text) => {
        expect(estimator.count(text)).toBeGreaterThanOrEqual(o200k.count(text))
      }),
      { numRuns: 500 },
    )
  })
})
