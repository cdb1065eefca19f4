import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Item } from '../items'
import { ThreadAuditor } from './thread-auditor'

const message = (role: string, content: unknown[]) => ({ type: 'message', role, content })
const where = { file: 'test', line: 1 }
/** Feeds an item (without its seq) at `seq`. */
const feed = (
  audit: ThreadAuditor,
  source: 'active' | 'archive',
  seq: number,
  item: object,
  place: typeof where,
) => audit.add(source, { ...item, seq } as unknown as Item, place)

/** The seqs a problem's message names: `seq 4`, `seqs 4–6` or `seqs 2, 4–6`. */
function seqsNamed(message: string): number[] {
  const list = /seqs? ([\d–, ]*\d)/.exec(message)?.[1] ?? ''
  return list.split(', ').flatMap((range) => {
    const [from, to = from] = range.split('–').map(Number) as [number, number?]
    return Array.from({ length: to - from + 1 }, (_value, offset) => from + offset)
  })
}

describe('ThreadAuditor', () => {
  it('reports exactly the seqs in neither the active log nor the archive, as ranges', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('active', 'archive', 'both', 'missing'), { minLength: 1, maxLength: 60 }),
        (placements) => {
          // The newest seq is present: a gap is a hole below the last seq.
          placements.push('active')
          const audit = new ThreadAuditor('t')
          placements.forEach((placement, index) => {
            if (placement === 'active' || placement === 'both')
              feed(audit, 'active', index + 1, message('user', []), where)
          })
          placements.forEach((placement, index) => {
            if (placement === 'archive' || placement === 'both')
              feed(audit, 'archive', index + 1, message('user', []), where)
          })
          const problems = audit.finish()
          const missing = placements.flatMap((placement, index) =>
            placement === 'missing' ? [index + 1] : [],
          )
          const gaps = problems.filter((problem) => problem.code === 'seq-gap')
          expect(gaps.flatMap((gap) => seqsNamed(gap.message))).toEqual(missing)
          // Items in both files are one problem, an interrupted archive, naming their seqs as ranges.
          const inBoth = placements.flatMap((placement, index) => (placement === 'both' ? [index + 1] : []))
          const pending = problems.filter((problem) => problem.code === 'archive-pending')
          expect(pending.length).toBe(inBoth.length === 0 ? 0 : 1)
          if (pending[0] !== undefined) expect(seqsNamed(pending[0].message)).toEqual(inBoth)
          expect(audit.items).toBe(placements.length - missing.length)
        },
      ),
    )
  })

  it('reports a budget compaction cut short: a summary whose covered items are still active', () => {
    const summary = (covers: { fromSeq: number; toSeq: number }[]) => ({
      type: 'summary',
      tier: 'episodic',
      text: 'They talked.',
      range: { fromSeq: 1, toSeq: 4 },
      covers,
      salience: 0.6,
    })
    const cutShort = new ThreadAuditor('t')
    for (const seq of [1, 2]) feed(cutShort, 'archive', seq, message('user', []), where)
    for (const seq of [3, 4, 5]) feed(cutShort, 'active', seq, message('user', []), where)
    feed(cutShort, 'active', 6, summary([{ fromSeq: 1, toSeq: 4 }]), where)
    expect(cutShort.finish().map(({ code, seq, message: text }) => [code, seq, text])).toEqual([
      ['compaction-unfinished', 6, 'the summary at seq 6 covers 2 items still in the active log (seqs 3–4).'],
    ])
    const finished = new ThreadAuditor('t')
    for (const seq of [1, 2, 3, 4]) feed(finished, 'archive', seq, message('user', []), where)
    feed(finished, 'active', 5, message('user', []), where)
    feed(finished, 'active', 6, summary([{ fromSeq: 1, toSeq: 4 }]), where)
    expect(finished.finish()).toEqual([])
  })

  it('pairs tool calls and results across the log and the archive; the newest message may still wait', () => {
    const audit = new ThreadAuditor('t')
    const call = (id: string) => ({ type: 'tool-call', toolCallId: id, toolName: 'lookup', input: {} })
    const result = (id: string) => ({ type: 'tool-result', toolCallId: id, toolName: 'lookup', output: 'ok' })
    feed(audit, 'archive', 1, message('assistant', [call('a')]), where)
    feed(audit, 'active', 2, message('tool', [result('a')]), where)
    feed(audit, 'active', 3, message('assistant', [call('b')]), where)
    feed(audit, 'active', 4, message('user', [{ type: 'text', text: 'and?' }]), where)
    feed(audit, 'active', 5, message('tool', [result('z')]), where)
    feed(audit, 'active', 6, message('assistant', [call('c')]), where)
    expect(audit.finish().map((problem) => [problem.code, problem.seq])).toEqual([
      ['orphan-tool-call', 3],
      ['orphan-tool-result', 5],
    ])
  })

  it('an archived call without a result (a rewind set it aside unanswered) is no problem; an active one is', () => {
    const audit = new ThreadAuditor('t')
    const call = (id: string) => ({ type: 'tool-call', toolCallId: id, toolName: 'lookup', input: {} })
    const result = (id: string) => ({ type: 'tool-result', toolCallId: id, toolName: 'lookup', output: 'ok' })
    feed(audit, 'active', 1, message('user', [{ type: 'text', text: 'look' }]), where)
    feed(audit, 'active', 3, message('assistant', [call('a')]), where)
    feed(audit, 'active', 4, message('tool', [result('a')]), where)
    feed(audit, 'active', 5, message('assistant', [call('x')]), where)
    feed(audit, 'active', 6, message('user', [{ type: 'text', text: 'and?' }]), where)
    feed(audit, 'archive', 2, message('assistant', [call('a'), call('b')]), where)
    expect(audit.finish().map((problem) => [problem.code, problem.seq])).toEqual([['orphan-tool-call', 5]])
  })
})
