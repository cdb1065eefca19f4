import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SummarizeResult } from '.'
import { itemsArbitrary, summarizeArbitrary } from './pattern-arbitraries'
import { patternSummarizer } from './pattern-summarizer'

/**
 * What the pattern summarizer wrote, before its reading was rewritten for speed, for 160 generated
 * item lists and options (the same seed, so the same input every run): the summaries and facts must
 * stay exactly these. `input` is a digest of each case's input, so a change in how the input is
 * generated is told apart from a change in the summarizer.
 */
const RECORDED = JSON.parse(
  readFileSync(new URL('./pattern-summarizer.recorded.json', import.meta.url), 'utf8'),
) as (SummarizeResult & { input: string })[]
const SEED = 20261127

/** FNV-1a of a text, as 8 hex digits. */
function digest(text: string): string {
  let hash = 0x811c9dc5
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, '0')
}

describe('the pattern summarizer after its rewrite', () => {
  it('writes the summaries and facts it wrote before, for every recorded input', async () => {
    const cases = fc.sample(fc.tuple(itemsArbitrary, summarizeArbitrary), {
      numRuns: RECORDED.length,
      seed: SEED,
    })
    for (const [index, [items, { options, call }]] of cases.entries()) {
      const recorded = RECORDED[index]!
      expect(
        digest(JSON.stringify([items, options, call])),
        `case ${index}: its input is generated differently`,
      ).toBe(recorded.input)
      const result = await patternSummarizer(options).summarize(items, call)
      expect(result, `case ${index}`).toEqual({ summary: recorded.summary, facts: recorded.facts })
    }
  })
})
