import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LogAudit } from './log-audit'

const message = (role: string, content: unknown[]) => ({ type: 'message', role, content })
const where = { file: 'test', line: 1 }

/** The seqs a problem's message names: `seq 4`, `seqs 4–6` or `seqs 2, 4–6`. */
function seqsNamed(message: string): number[] {
  const list = /seqs? ([\d–, ]*\d)/.exec(message)?.[1] ?? ''
  return list.split(', ').flatMap((range) => {
    const [from, to = from] = range.split('–').map(Number) as [number, number?]
    return Array.from({ length: to - from + 1 }, (_value, offset) => from + offset)
  })
}

describe('LogAudit', () => {
  it('reports exactly the seqs in neither the active log nor the archive, as ranges', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('active', 'archive', 'both', 'missing'), { minLength: 1, maxLength: 60 }),
        (placements) => {
          // The newest seq is present: a gap is a hole below the last seq.
          placements.push('active')
          const audit = new LogAudit('t')
          placements.forEach((placement, index) => {
            if (placement === 'active' || placement === 'both')
              audit.add('active', index + 1, message('user', []), where)
          })
          placements.forEach((placement, index) => {
            if (placement === 'archive' || placement === 'both')
              audit.add('archive', index + 1, message('user', []), where)
          })
          const problems = audit.finish()
          const missing = placements.flatMap((placement, index) =>
            placement === 'missing' ? [index + 1] : [],
          )
          const gaps = problems.filter((problem) => problem.kind === 'seq-gap')
          expect(gaps.flatMap((gap) => seqsNamed(gap.message))).toEqual(missing)
          // Items in both files are one problem, an interrupted archive, naming their seqs as ranges.
          const inBoth = placements.flatMap((placement, index) => (placement === 'both' ? [index + 1] : []))
          const pending = problems.filter((problem) => problem.kind === 'archive-pending')
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
    const cutShort = new LogAudit('t')
    for (const seq of [1, 2]) cutShort.add('archive', seq, message('user', []), where)
    for (const seq of [3, 4, 5]) cutShort.add('active', seq, message('user', []), where)
    cutShort.add('active', 6, summary([{ fromSeq: 1, toSeq: 4 }]), where)
    expect(cutShort.finish().map(({ kind, seq, message: text }) => [kind, seq, text])).toEqual([
      ['compaction-unfinished', 6, 'the summary at seq 6 covers 2 items still in the active log (seqs 3–4).'],
    ])
    const finished = new LogAudit('t')
    for (const seq of [1, 2, 3, 4]) finished.add('archive', seq, message('user', []), where)
    finished.add('active', 5, message('user', []), where)
    finished.add('active', 6, summary([{ fromSeq: 1, toSeq: 4 }]), where)
    expect(finished.finish()).toEqual([])
  })

  it('pairs tool calls and results across the log and the archive; the newest message may still wait', () => {
    const audit = new LogAudit('t')
    const call = (id: string) => ({ type: 'tool-call', toolCallId: id, toolName: 'lookup', input: {} })
    const result = (id: string) => ({ type: 'tool-result', toolCallId: id, toolName: 'lookup', output: 'ok' })
    audit.add('archive', 1, message('assistant', [call('a')]), where)
    audit.add('active', 2, message('tool', [result('a')]), where)
    audit.add('active', 3, message('assistant', [call('b')]), where)
    audit.add('active', 4, message('user', [{ type: 'text', text: 'and?' }]), where)
    audit.add('active', 5, message('tool', [result('z')]), where)
    audit.add('active', 6, message('assistant', [call('c')]), where)
    expect(audit.finish().map((problem) => [problem.kind, problem.seq])).toEqual([
      ['orphan-tool-call', 3],
      ['orphan-tool-result', 5],
    ])
  })

  it('an archived call without a result (a rewind set it aside unanswered) is no problem; an active one is', () => {
    const audit = new LogAudit('t')
    const call = (id: string) => ({ type: 'tool-call', toolCallId: id, toolName: 'lookup', input: {} })
    const result = (id: string) => ({ type: 'tool-result', toolCallId: id, toolName: 'lookup', output: 'ok' })
    audit.add('active', 1, message('user', [{ type: 'text', text: 'look' }]), where)
    audit.add('active', 3, message('assistant', [call('a')]), where)
    audit.add('active', 4, message('tool', [result('a')]), where)
    audit.add('active', 5, message('assistant', [call('x')]), where)
    audit.add('active', 6, message('user', [{ type: 'text', text: 'and?' }]), where)
    audit.add('archive', 2, message('assistant', [call('a'), call('b')]), where)
    expect(audit.finish().map((problem) => [problem.kind, problem.seq])).toEqual([['orphan-tool-call', 5]])
  })
})
