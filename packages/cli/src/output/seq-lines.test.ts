import { describe, expect, it } from 'vitest'
import { SeqLines } from './seq-lines'

/** Line `seq`'s text: some long enough to fill blocks, with characters UTF-8 takes 2 to 4 bytes for. */
const textOf = (seq: number, archived: boolean) =>
  `{"seq":${seq},"place":"${archived ? 'archive' : 'active'}","text":"${'x'.repeat((seq * 37) % 900)}Grüße — 🌳"}`

/** What the lines must give: seq order, a seq in both places once (the archive's), a line per item. */
function expected(added: readonly [number, boolean][], written: (archived: boolean) => boolean) {
  const bySeq = new Map<number, boolean>()
  for (const [seq, archived] of added) if (archived || !bySeq.has(seq)) bySeq.set(seq, archived)
  const seqs = [...bySeq.keys()].sort((left, right) => left - right)
  const shown = seqs.filter((seq) => written(bySeq.get(seq)!))
  return {
    text: shown.map((seq) => `${textOf(seq, bySeq.get(seq)!)}\n`).join(''),
    count: shown.length,
    lastSeq: seqs.at(-1) ?? 0,
    archivedSeqs: shown.filter((seq) => bySeq.get(seq)),
  }
}

function run(added: readonly [number, boolean][], written: (archived: boolean) => boolean = () => true) {
  const lines = new SeqLines()
  for (const [seq, archived] of added)
    lines.add(seq, archived, written(archived) ? textOf(seq, archived) : undefined)
  const { chunks, ...rest } = lines.finish()
  return { text: Buffer.concat(chunks).toString('utf8'), ...rest, chunks: chunks.length }
}

describe('SeqLines', () => {
  it('gives the lines in seq order as a few large chunks, a seq in both places once, from the archive', () => {
    // As the file store hands them over: the active log, then the archive (its parts out of order),
    // seqs 2001–2100 in both (an interrupted archive).
    const active = Array.from(
      { length: 8_000 },
      (_value, index) => [2_001 + index, false] as [number, boolean],
    )
    const parts = [
      [1_001, 2_100],
      [1, 1_000],
    ]
    const archived = parts.flatMap(([from, to]) =>
      Array.from({ length: to! - from! + 1 }, (_value, index) => [from! + index, true] as [number, boolean]),
    )
    const added = [...active, ...archived]
    const { chunks, ...result } = run(added)
    expect(result).toEqual(expected(added, () => true))
    expect(chunks).toBeLessThan(20)
    // Without the archive's lines: counted in the last seq, not written.
    const { chunks: _chunks, ...activeOnly } = run(added, (isArchived) => !isArchived)
    expect(activeOnly).toEqual(expected(added, (isArchived) => !isArchived))
  })

  it('gives the usual thread (each place in order, the archive below the active log) as its blocks', () => {
    const place = (from: number, to: number, archived: boolean) =>
      Array.from({ length: to - from + 1 }, (_value, index) => [from + index, archived] as [number, boolean])
    const usual = [...place(2_001, 9_000, false), ...place(1, 2_000, true)]
    for (const added of [usual, place(1, 3_000, false), place(1, 3_000, true)]) {
      const { chunks, ...result } = run(added)
      expect(result).toEqual(expected(added, () => true))
      const { chunks: _chunks, ...activeOnly } = run(added, (isArchived) => !isArchived)
      expect(activeOnly).toEqual(expected(added, (isArchived) => !isArchived))
    }
  })

  it('orders lines that come interleaved and shuffled, and an empty thread', () => {
    let state = 7
    const random = () => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31
      return state / 2 ** 31
    }
    const added: [number, boolean][] = []
    for (let seq = 1; seq <= 3_000; seq++) {
      const place = random()
      if (place < 0.4) added.push([seq, false])
      else if (place < 0.8) added.push([seq, true])
      else added.push([seq, false], [seq, true])
    }
    added.sort(() => random() - 0.5)
    const { chunks, ...result } = run(added)
    expect(result).toEqual(expected(added, () => true))
    expect(run([])).toEqual({ text: '', count: 0, lastSeq: 0, archivedSeqs: [], chunks: 0 })
  })

  it('holds lines larger than a block', () => {
    const lines = new SeqLines()
    const long = ['—'.repeat(400_000), '🌳'.repeat(600_000), 'x'.repeat(2_000_000)]
    for (const [index, text] of long.entries()) lines.add(3 - index, index === 1, text)
    const { chunks, count } = lines.finish()
    expect(count).toBe(3)
    expect(Buffer.concat(chunks).toString('utf8')).toBe(`${long.reverse().join('\n')}\n`)
  })
})
