import { describe, expect, it } from 'vitest'
import { isRecalledFact, mergeFacts, normalizeFactText } from './facts'

describe('normalizeFactText', () => {
  it('ignores case, whitespace and trailing punctuation', () => {
    expect(normalizeFactText('  The user   is\nAna. ')).toBe('the user is ana')
    expect(normalizeFactText('Deploys on Fridays!?')).toBe('deploys on fridays')
    expect(normalizeFactText('ＡＢＣ。')).toBe('abc')
    expect(normalizeFactText('v1.2 is current')).toBe('v1.2 is current')
  })
})

describe('mergeFacts', () => {
  it('the same fact twice is one fact with the later confidence and all tags', () => {
    const merged = mergeFacts(
      [{ text: 'Uses pnpm.', confidence: 0.6, tags: ['tooling'] }],
      [{ text: 'uses  PNPM', confidence: 0.9, tags: ['build', 'tooling'] }],
    )
    expect(merged).toEqual([{ text: 'Uses pnpm.', confidence: 0.9, tags: ['tooling', 'build'] }])
  })

  it('orders facts by their last occurrence (a fact seen again is recent) and dedupes within one list', () => {
    const merged = mergeFacts(
      [{ text: 'A' }, { text: 'B', confidence: 0.2 }, { text: 'D' }],
      [{ text: 'C' }, { text: 'b!', confidence: 0.4 }, { text: 'c.', confidence: 0.1 }, { text: 'B' }],
    )
    expect(merged).toEqual([
      { text: 'A' },
      { text: 'D' },
      { text: 'C', confidence: 0.1 },
      { text: 'B', confidence: 0.4 },
    ])
  })

  it('keeps the earlier fact’s own fields (an id) and drops empty facts', () => {
    const merged = mergeFacts(
      [{ id: 'f1', text: 'Lives in Lisbon', confidence: 0.5 }],
      [
        { id: 'new', text: 'lives in lisbon', confidence: 0.7 },
        { id: 'empty', text: ' ... ' },
      ],
    )
    expect(merged).toEqual([{ id: 'f1', text: 'Lives in Lisbon', confidence: 0.7 }])
  })

  it('different facts stay apart', () => {
    expect(mergeFacts([{ text: 'Likes tea' }], [{ text: 'Likes coffee' }])).toHaveLength(2)
  })
})

describe('isRecalledFact', () => {
  it('recognises a recalled fact however it is written', () => {
    const recalled = ['Uses pnpm', 'Deploys on Fridays']
    expect(isRecalledFact('uses PNPM.', recalled)).toBe(true)
    expect(isRecalledFact('Uses npm', recalled)).toBe(false)
    expect(isRecalledFact('', [''])).toBe(false)
  })
})
