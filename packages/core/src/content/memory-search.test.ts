import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { snippetOf } from './memory-search'
import { termsOf } from './search-terms'

describe('snippetOf', () => {
  it('shows where the query words come together, not the first mention of one of them', () => {
    const page = [
      'Vendors overview. This page lists vendors, their contacts and reference codes.',
      'x '.repeat(400),
      'Lusa Ltd: the vendor reference code is ZX-4471, confirmed by the buyer in March.',
      'y '.repeat(400),
    ].join('\n')
    const snippet = snippetOf(page, termsOf('vendor reference code Lusa'))
    expect(snippet).toContain('ZX-4471')
    expect(snippet).toContain('Lusa Ltd')
  })

  it('weighs rare words above common ones', () => {
    const text = `the total was paid. ${'filler '.repeat(40)} the total of PO-7001 is due`
    const terms = ['total', 'paid', 'po7001']
    // Unweighted, both places hold two of the words: the earlier wins.
    expect(snippetOf(text, terms)).toContain('paid')
    const weights = new Map([
      ['total', 0.1],
      ['paid', 0.1],
      ['po7001', 3],
    ])
    expect(snippetOf(text, terms, weights)).toContain('PO-7001')
    expect(snippetOf(text, terms, weights)).not.toContain('paid')
  })

  it('starts at the text when no word occurs, and is one line of about 160 characters', () => {
    expect(snippetOf('first line\nsecond line', ['absent'])).toBe('first line second line')
    fc.assert(
      fc.property(
        fc.string({ maxLength: 2_000 }),
        fc.array(fc.string({ minLength: 1, maxLength: 6 })),
        (text, words) => {
          const snippet = snippetOf(text, termsOf(words.join(' ')))
          expect(snippet).not.toMatch(/\n/)
          expect(snippet.length).toBeLessThanOrEqual(162)
        },
      ),
    )
  })
})
