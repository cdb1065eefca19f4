import { describe, expect, it } from 'vitest'
import {
  clip,
  findIdentifiers,
  isIdentifier,
  jsonGist,
  READ_CHARS,
  sentences,
  statementKind,
} from './text-gist'

const identifiersOf = (text: string) => {
  const found: string[] = []
  findIdentifiers(text, (identifier) => found.push(identifier))
  return found
}

describe('text gist', () => {
  it('splits sentences at . ! ? and line breaks, not after an abbreviation', () => {
    expect(sentences('Send it to Dr. Maria Keller. Is it done?\nYes!  Thanks')).toEqual([
      'Send it to Dr. Maria Keller.',
      'Is it done?',
      'Yes!',
      'Thanks',
    ])
    expect(sentences(`${'word '.repeat(2_000)}. Late.`).join(' ').length).toBeLessThanOrEqual(READ_CHARS)
  })

  it('tells names, preferences and decisions from other sentences', () => {
    expect(statementKind('My name is Ana Lima.')).toBe('name')
    expect(statementKind('Please call me Bo.')).toBe('name')
    expect(statementKind('I’d rather have the window seat.')).toBe('preference')
    expect(statementKind('Never book red-eye flights.')).toBe('preference')
    expect(statementKind("Let's use Postgres for this.")).toBe('decision')
    expect(statementKind('Where is my parcel?')).toBeUndefined()
    expect(statementKind('Can we use Redis?')).toBeUndefined()
  })

  it('finds identifiers, values and names verbatim, without the punctuation around them', () => {
    expect(
      identifiersOf(
        'Ticket (ZX-4471) for Ana Lima, paid $49.90 on 2026-11-26 at 19:30: see https://example.com/t?id=7, ' +
          'mail ana@example.com, file src/index.ts, order #12345 and A-1234’s 12 kg box.',
      ),
    ).toEqual([
      'ZX-4471',
      'Ana Lima',
      '$49.90',
      '2026-11-26',
      '19:30',
      'https://example.com/t?id=7',
      'ana@example.com',
      'src/index.ts',
      '#12345',
      'A-1234',
      '12 kg',
    ])
    // A capital word that starts a sentence is not taken for a name; plain words are no identifiers.
    expect(identifiersOf('Great Work. The order shipped in time.')).toEqual([])
    expect(isIdentifier('ZX-4471')).toBe(true)
    expect(isIdentifier('ZX-4471 shipped')).toBe(false)
    expect(isIdentifier('x'.repeat(300))).toBe(false)
  })

  it('clips at a word boundary and gives the first line or first fields of a result', () => {
    expect(clip('one two   three four', 12)).toBe('one two…')
    expect(clip('short', 12)).toBe('short')
    expect(jsonGist('\n\nFirst line.\nSecond line.', { max: 80, separator: ': ' })).toBe('First line.')
    expect(jsonGist({ id: 7, user: { name: 'Ana' }, ok: true }, { max: 80, separator: '=' })).toBe(
      'id=7, ok=true, name=Ana',
    )
    expect(jsonGist({ ids: ['a', 'b', 'c', 'd', 'e'] }, { max: 80, separator: '=' })).toBe('ids=[a, b, c, …]')
    expect(jsonGist([{ sku: 'S-1' }, { sku: 'S-2' }], { max: 80, separator: ': ' })).toBe(
      '2 items: sku: [S-1, S-2]',
    )
  })
})
