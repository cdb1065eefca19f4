import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { indexAfterSeq, indexFromSeq } from './seq-search'

describe('seq search', () => {
  it('finds what a linear scan finds, for any sorted seqs and any seq, whole or not', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 200 })).map((seqs) => seqs.sort((a, b) => a - b)),
        fc.oneof(fc.integer({ min: -5, max: 205 }), fc.double({ min: -5, max: 205, noNaN: true })),
        (seqs, seq) => {
          const items = seqs.map((value) => ({ seq: value }))
          const scan = (keep: (value: number) => boolean) => {
            const index = seqs.findIndex(keep)
            return index === -1 ? seqs.length : index
          }
          expect(indexFromSeq(items, seq)).toBe(scan((value) => value >= seq))
          expect(indexAfterSeq(items, seq)).toBe(scan((value) => value > seq))
        },
      ),
    )
  })
})
