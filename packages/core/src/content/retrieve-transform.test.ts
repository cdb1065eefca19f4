import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applyTransform } from './retrieve-transform'

const text = [
  '# Report',
  '',
  'Alpha rose 3%. More detail here.',
  'beta fell',
  '',
  'Gamma is flat! Then more.',
  'ALPHA again',
].join('\n')
const rows = [
  { id: 1, name: 'alpha', tags: ['x'] },
  { id: 2, name: 'Beta', tags: [] },
  { id: 3, name: 'gamma', note: 'see alpha' },
]
const object = { alpha: 1, beta: { nested: 'Alpha' }, gamma: [1, 2] }

describe('retrieve transforms on text', () => {
  it('full returns the data untouched', () => {
    expect(applyTransform(text, false, { transform: 'full' })).toEqual({ content: text, truncated: false })
  })

  it('excerpt caps the length and centres on the first match', () => {
    const long = `${'a'.repeat(5_000)}NEEDLE${'b'.repeat(5_000)}`
    const start = applyTransform(long, false, { transform: 'excerpt', maxChars: 100 })
    expect(start).toEqual({ content: 'a'.repeat(100), truncated: true })
    const centred = applyTransform(long, false, { transform: 'excerpt', maxChars: 106, pattern: 'needle' })
    expect(centred.content).toBe(`${'a'.repeat(50)}NEEDLE${'b'.repeat(50)}`)
    expect(applyTransform('short', false, { transform: 'excerpt' })).toEqual({
      content: 'short',
      truncated: false,
    })
  })

  it('summary gives the size and the lead sentence of each paragraph, within maxChars', () => {
    const { content, truncated } = applyTransform(text, false, { transform: 'summary' })
    expect(content).toBe(
      ['Text: 7 lines, 17 words, 91 characters.', '# Report', 'Alpha rose 3%.', 'Gamma is flat!'].join('\n'),
    )
    expect(truncated).toBe(true)
    expect(applyTransform(text, false, { transform: 'summary', maxChars: 20 }).content).toHaveLength(20)
  })

  it('first_n and last_n take lines', () => {
    expect(applyTransform(text, false, { transform: 'first_n', n: 3 })).toEqual({
      content: '# Report\n\nAlpha rose 3%. More detail here.',
      truncated: true,
    })
    expect(applyTransform(text, false, { transform: 'last_n', n: 2 })).toEqual({
      content: 'Gamma is flat! Then more.\nALPHA again',
      truncated: true,
    })
    expect(applyTransform(text, false, { transform: 'first_n', n: 50 })).toEqual({
      content: text,
      truncated: false,
    })
    // The default n is 20 lines.
    const many = Array.from({ length: 30 }, (_, index) => `line ${index}`).join('\n')
    expect(applyTransform(many, false, { transform: 'last_n' }).content.split('\n')).toHaveLength(20)
  })

  it('filtered keeps the lines that contain the pattern, case-insensitively', () => {
    expect(applyTransform(text, false, { transform: 'filtered', pattern: 'alpha' })).toEqual({
      content: 'Alpha rose 3%. More detail here.\nALPHA again',
      truncated: true,
    })
    expect(applyTransform(text, false, { transform: 'filtered', pattern: 'zzz' })).toEqual({
      content: '',
      truncated: true,
      note: 'No line contains "zzz".',
    })
    // Nothing to remove: the text as stored, and a note saying so.
    expect(applyTransform('a1\na2', false, { transform: 'filtered', pattern: 'A' })).toEqual({
      content: 'a1\na2',
      truncated: false,
      note: 'Every line contains "A": this is the whole content.',
    })
  })
})

describe('retrieve transforms on JSON', () => {
  const array = JSON.stringify(rows)
  const record = JSON.stringify(object)

  it('full returns the stored serialisation', () => {
    expect(applyTransform(array, true, { transform: 'full' }).content).toBe(array)
  })

  it('excerpt works on the serialised text', () => {
    const { content } = applyTransform(array, true, { transform: 'excerpt', maxChars: 20, pattern: 'gamma' })
    expect(content).toHaveLength(20)
    expect(content).toContain('gamma')
  })

  it('summary outlines the shape', () => {
    const { content } = applyTransform(array, true, { transform: 'summary' })
    expect(content).toBe(
      `JSON, ${array.length} characters: array(3) of { id: number, name: string, tags: array(1) of string }\nFirst element: ${JSON.stringify(rows[0])}`,
    )
    expect(applyTransform(record, true, { transform: 'summary' }).content).toBe(
      `JSON, ${record.length} characters: { alpha: number, beta: { nested: string }, gamma: array(2) of number }`,
    )
  })

  it('first_n and last_n take array elements, or object entries', () => {
    expect(JSON.parse(applyTransform(array, true, { transform: 'first_n', n: 2 }).content)).toEqual(
      rows.slice(0, 2),
    )
    expect(JSON.parse(applyTransform(array, true, { transform: 'last_n', n: 1 }).content)).toEqual(
      rows.slice(-1),
    )
    expect(applyTransform(array, true, { transform: 'last_n', n: 3 }).truncated).toBe(false)
    expect(JSON.parse(applyTransform(record, true, { transform: 'first_n', n: 1 }).content)).toEqual({
      alpha: 1,
    })
    expect(JSON.parse(applyTransform(record, true, { transform: 'last_n', n: 1 }).content)).toEqual({
      gamma: [1, 2],
    })
  })

  it('filtered keeps the elements whose JSON contains the pattern', () => {
    const kept = applyTransform(array, true, { transform: 'filtered', pattern: 'ALPHA' })
    expect(JSON.parse(kept.content)).toEqual([rows[0], rows[2]])
    expect(kept.truncated).toBe(true)
    // An object keeps its shape: its scalars and objects stay, its lists are filtered.
    expect(
      JSON.parse(applyTransform(record, true, { transform: 'filtered', pattern: 'alpha' }).content),
    ).toEqual({
      alpha: 1,
      beta: { nested: 'Alpha' },
      gamma: [],
    })
  })

  it('treats data that does not parse as text', () => {
    expect(applyTransform('{oops\nline', true, { transform: 'first_n', n: 1 }).content).toBe('{oops')
  })
})

describe('transform invariants', () => {
  it('first_n followed by the rest is the whole text; filtered lines all contain the pattern', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 12 }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 40 }),
        fc.string({ minLength: 1, maxLength: 2 }),
        (lines, n, pattern) => {
          const data = lines.join('\n')
          const first = applyTransform(data, false, { transform: 'first_n', n }).content
          const all = data.split('\n')
          expect(first).toBe(all.slice(0, n).join('\n'))
          expect(applyTransform(data, false, { transform: 'last_n', n }).content).toBe(
            all.slice(-n).join('\n'),
          )
          const filtered = applyTransform(data, false, { transform: 'filtered', pattern }).content
          if (filtered !== '')
            for (const line of filtered.split('\n'))
              expect(line.toLowerCase()).toContain(pattern.toLowerCase())
        },
      ),
    )
  })
})
