import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ArchiveFilter, callKey, idKey } from './archive-filter'

describe('ArchiveFilter', () => {
  it('never says no to a key it holds, and names the block of its seq (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 3_000 }),
        (ids) => {
          const filter = new ArchiveFilter()
          ids.forEach((id, index) => {
            filter.add(idKey(id), index + 1)
          })
          const restored = ArchiveFilter.fromJSON(JSON.parse(JSON.stringify(filter.toJSON())))!
          ids.forEach((id, index) => {
            for (const each of [filter, restored]) {
              const ranges = each.rangesOf(idKey(id))
              expect(ranges.some((range) => range.fromSeq <= index + 1 && index + 1 <= range.toSeq)).toBe(
                true,
              )
            }
          })
        },
      ),
      { numRuns: 20 },
    )
  })

  it('says "maybe" to a key it does not hold about once in a thousand blocks', () => {
    const filter = new ArchiveFilter()
    for (let seq = 1; seq <= 20_480; seq++) filter.add(idKey(`item-${seq}`), seq)
    let maybes = 0
    const asked = 20_000
    for (let index = 0; index < asked; index++) maybes += filter.rangesOf(callKey(`other-${index}`)).length
    // 20 full blocks: at most ~1/2 000 per block expected; 1/500 leaves room for chance.
    expect(maybes / (asked * 20)).toBeLessThan(1 / 500)
  })

  it('stores its blocks as they are now, however often it was stored before (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.string(), { maxLength: 400 }), { minLength: 1, maxLength: 6 }),
        (rounds) => {
          const filter = new ArchiveFilter()
          let seq = 0
          for (const keys of rounds) {
            for (const key of keys) filter.add(idKey(key), ++seq)
            // Stored after each round (a thread stores its digest after each compaction step).
            const stored = JSON.parse(JSON.stringify(filter))
            const fresh = new ArchiveFilter()
            let again = 0
            for (const round of rounds.slice(0, rounds.indexOf(keys) + 1))
              for (const key of round) fresh.add(idKey(key), ++again)
            expect(stored).toEqual(JSON.parse(JSON.stringify(fresh)))
          }
        },
      ),
      { numRuns: 50 },
    )
  })

  it('a clone takes further keys without changing the original; stored blocks read back or are refused', () => {
    const filter = new ArchiveFilter()
    filter.add(idKey('a'), 1)
    const clone = filter.clone()
    clone.add(idKey('b'), 2)
    expect(filter.rangesOf(idKey('b'))).toEqual([])
    expect(clone.rangesOf(idKey('b'))).toEqual([{ fromSeq: 1, toSeq: 2 }])
    expect(ArchiveFilter.fromJSON([{ fromSeq: 1, toSeq: 2, keys: 1, bits: 'not base64!' }])).toBeUndefined()
    expect(ArchiveFilter.fromJSON([{ fromSeq: 1, toSeq: 2, keys: 1, bits: 'AAAA' }])).toBeUndefined()
    expect(ArchiveFilter.fromJSON({})).toBeUndefined()
  })
})
