import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { tokenSamples } from '../testing/token-samples'
import { gptTokenizer } from '../tokenizer'
import { tokenEstimator } from './token-estimator'

const estimator = tokenEstimator()
const o200k = gptTokenizer({ encoding: 'o200k_base' })
const cl100k = gptTokenizer({ encoding: 'cl100k_base' })

/**
 * How far above the real count the estimate may go, per category, against `o200k_base` or against the
 * larger of the two encodings. CJK and the other scripts need more room: there `cl100k_base` spends up
 * to 1.9× (CJK) and 3× (Devanagari, Hebrew) what `o200k_base` does, and the estimate must cover both.
 */
const caps: Record<string, { ratio: number; of: 'o200k_base' | 'larger' }> = {
  prose: { ratio: 1.6, of: 'o200k_base' },
  code: { ratio: 1.6, of: 'o200k_base' },
  json: { ratio: 1.6, of: 'o200k_base' },
  chinese: { ratio: 2.4, of: 'o200k_base' },
  japanese: { ratio: 2.3, of: 'o200k_base' },
  korean: { ratio: 2.3, of: 'o200k_base' },
  emoji: { ratio: 2, of: 'o200k_base' },
  mixed: { ratio: 1.8, of: 'o200k_base' },
  digits: { ratio: 1.4, of: 'o200k_base' },
  blobs: { ratio: 1.4, of: 'o200k_base' },
  whitespace: { ratio: 2.2, of: 'o200k_base' },
  'other scripts': { ratio: 1.5, of: 'larger' },
}
// Below this many tokens the one token of headroom dominates the ratio, so caps start here.
const CAPPED_FROM_TOKENS = 16

const categories = Object.keys(tokenSamples)

describe('tokenEstimator', () => {
  it('has a cap for every sample category', () => {
    expect(Object.keys(caps).sort()).toEqual([...categories].sort())
  })

  it.each(categories)('never undercounts o200k_base or cl100k_base on %s', (category) => {
    for (const text of tokenSamples[category]!) {
      const estimate = estimator.count(text)
      expect(estimate, text.slice(0, 80)).toBeGreaterThanOrEqual(o200k.count(text))
      expect(estimate, text.slice(0, 80)).toBeGreaterThanOrEqual(cl100k.count(text))
    }
  })

  it.each(categories)('does not overcount %s beyond its cap', (category) => {
    const { ratio, of } = caps[category]!
    for (const text of tokenSamples[category]!) {
      const exact = of === 'o200k_base' ? o200k.count(text) : Math.max(o200k.count(text), cl100k.count(text))
      if (exact < CAPPED_FROM_TOKENS) continue
      expect(estimator.count(text) / exact, text.slice(0, 80)).toBeLessThanOrEqual(ratio)
    }
  })

  it('estimates English prose at 1 to 1.6 times o200k_base', () => {
    const ratios = tokenSamples.prose!.map((text) => estimator.count(text) / o200k.count(text))
    expect(Math.min(...ratios)).toBeGreaterThanOrEqual(1)
    expect(Math.max(...ratios)).toBeLessThanOrEqual(1.6)
  })

  it('counts digit runs in groups of three, like both tokenizers, plus one token of headroom', () => {
    for (const length of [1, 2, 3, 4, 10, 100, 1000]) {
      const digits = '7'.repeat(length)
      expect(estimator.count(digits)).toBe(Math.ceil(length / 3) + 1)
      expect(o200k.count(digits)).toBe(Math.ceil(length / 3))
    }
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

  describe('on random strings', () => {
    const arbitraries = {
      'printable ASCII': fc.string({ maxLength: 200 }),
      'any ASCII': fc.string({ unit: 'binary-ascii', maxLength: 200 }),
      graphemes: fc.string({ unit: 'grapheme', maxLength: 100 }),
      'any code points': fc.string({ unit: 'binary', maxLength: 100 }),
      JSON: fc.json(),
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
})
