import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { queryTerms, searchQuery, termSpans, termsOf } from './search-terms'

describe('search terms', () => {
  it('split identifiers into their parts and keep the whole', () => {
    expect(termsOf('PO-7001')).toEqual(['po', '7001', 'po7001'])
    expect(termsOf('invoice_total')).toEqual(['invoice', 'total', 'invoicetotal'])
    expect(termsOf('fetchInvoice2')).toEqual(['fetch', 'invoice', '2', 'fetchinvoice2'])
    expect(termsOf('HTTPServer')).toEqual(['http', 'server', 'httpserver'])
    expect(termsOf('anna@example.com')).toEqual(['anna', 'example', 'com', 'annaexamplecom'])
  })

  it('read numbers with separators as one number too', () => {
    expect(termsOf('1,200.50')).toEqual(['1', '200', '50', '120050'])
    expect(termsOf('1200.50')).toContain('120050')
    expect(termsOf('2026-10-03')).toEqual(['2026', '10', '03', '20261003'])
  })

  it('fold case, accents, full-width forms and plurals', () => {
    expect(termsOf('Invoices CAFÉ ＰＯ boxes companies status')).toEqual([
      'invoice',
      'cafe',
      'po',
      'box',
      'company',
      'status',
    ])
  })

  it('cut Chinese, Japanese and Korean into characters and pairs', () => {
    expect(termsOf('東京都')).toEqual(['東', '東京', '京', '京都', '都'])
    expect(termsOf('東京tower')).toEqual(['東', '東京', '京', 'tower'])
    expect(termsOf('서울 회의')).toEqual(['서', '서울', '울', '회', '회의', '의'])
  })

  it('drop common words from a query unless nothing else is left', () => {
    expect(queryTerms('what is the PO-7001 total?')).toEqual(['po', '7001', 'po7001', 'total'])
    expect(queryTerms('The Who')).toEqual(['the', 'who'])
  })

  it("name a query's identifiers: their whole term and the terms held only as their parts", () => {
    expect(searchQuery('PO-7001 total')).toEqual({
      terms: ['po', '7001', 'po7001', 'total'],
      identifiers: [{ whole: 2, parts: [0, 1] }],
    })
    // A part the query also holds as a word is not only a part.
    expect(searchQuery('po PO-7001').identifiers).toEqual([{ whole: 2, parts: [1] }])
    // Common words are dropped as parts too; a whole folded to its own part is no identifier.
    expect(searchQuery('it-4 invoice')).toEqual({
      terms: ['4', 'it4', 'invoice'],
      identifiers: [{ whole: 1, parts: [0] }],
    })
    expect(searchQuery("Dana's manager").identifiers).toEqual([])
    expect(searchQuery('po 7001').identifiers).toEqual([])
    expect(searchQuery('RAREBIGMX09N9V6').terms).toEqual([
      'rarebigmx',
      '09',
      'n',
      '9',
      'v',
      '6',
      'rarebigmx09n9v6',
    ])
  })

  it('give each term the span of its token', () => {
    const text = 'Pay PO-7001 now'
    for (const span of termSpans(text)) expect(text.slice(span.start, span.end).length).toBeGreaterThan(0)
    expect(termSpans(text).find((span) => span.term === 'po7001')).toEqual({
      term: 'po7001',
      start: 4,
      end: 11,
    })
  })

  it('the ASCII scan gives the same terms as the general path', () => {
    const token = fc.stringMatching(/^[A-Za-z0-9_.,:/@#+'-]{1,16}$/)
    fc.assert(
      fc.property(fc.array(token, { maxLength: 6 }), (tokens) => {
        const text = tokens.join(' ')
        expect(termsOf(text)).toEqual(termsOf(text, { asciiScan: false }))
      }),
      { numRuns: 2_000 },
    )
    for (const text of ['PO-7001', 'HTTPServer2x', 'a--b', "don't", 'XMLHttpRequest', 'v1.2.3-rc1', 'A1b2C3'])
      expect(termsOf(text)).toEqual(termsOf(text, { asciiScan: false }))
  })

  it('a word of a text always gives terms the text holds', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9éü東京_.-]{1,10}$/)
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 8 }), fc.nat(), (words, at) => {
        const text = words.join(' ')
        const held = new Set(termsOf(text))
        for (const term of termsOf(words[at % words.length]!)) expect(held.has(term)).toBe(true)
      }),
    )
  })
})
