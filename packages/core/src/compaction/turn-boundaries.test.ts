import { describe, expect, it } from 'vitest'
import { TestHistory } from '../testing/test-history'
import { turnBoundaries } from './turn-boundaries'

describe('turnBoundaries', () => {
  it('cuts only between whole turns and never into the current turn', () => {
    const history = TestHistory.plain(3) // turns: 1-2, 3-4, 5-6
    const boundaries = turnBoundaries(history.items)
    expect(boundaries.currentTurnId).toBe('turn_0003')
    expect(boundaries.limitSeq).toBe(4)
    expect([1, 2, 3, 4, 5, 6, 99].map((seq) => boundaries.cutAtOrBefore(seq))).toEqual([0, 2, 2, 4, 4, 4, 4])
  })

  it('keeps a turn whole when its tool result arrives after the next turn started', () => {
    const history = new TestHistory()
    history.user() // 1
    const id = history.call() // 2
    history.user() // 3, turn 2
    history.result(id) // 4, turn 1
    history.assistant() // 5, turn 2
    history.user() // 6, turn 3
    const boundaries = turnBoundaries(history.items)
    expect(boundaries.turns.map((turn) => [turn.turnId, turn.seqs])).toEqual([
      ['turn_0001', [1, 2, 4]],
      ['turn_0002', [3, 5]],
      ['turn_0003', [6]],
    ])
    expect([2, 3, 4, 5].map((seq) => boundaries.cutAtOrBefore(seq))).toEqual([0, 0, 0, 5])
  })

  it('a pending call blocks its turn and everything after it', () => {
    const history = TestHistory.plain(2)
    history.user() // 5, turn 3
    history.call() // 6: never answered
    history.user() // 7
    history.assistant()
    history.user() // 9
    const boundaries = turnBoundaries(history.items)
    expect([...boundaries.pendingTurnIds]).toEqual(['turn_0003'])
    expect(boundaries.limitSeq).toBe(4)
    expect(boundaries.cutAtOrBefore(8)).toBe(4)
  })

  it('ignores context-memory items and sorts an unsorted input', () => {
    const history = TestHistory.plain(1)
    history.fact()
    history.user()
    const boundaries = turnBoundaries([...history.items].reverse())
    expect(boundaries.history.map((item) => item.seq)).toEqual([1, 2, 4])
    expect(boundaries.cutAtOrBefore(3)).toBe(2)
    expect(boundaries.between(0, 4).map((item) => item.seq)).toEqual([1, 2, 4])
  })

  it('keeps a call with its result even when the result is filed under another turn', () => {
    const history = new TestHistory()
    history.user() // 1
    const id = history.call() // 2
    history.user() // 3, turn 2
    history.assistant() // 4
    history.user() // 5, turn 3
    history.assistant() // 6
    const result = history.result(id) // 7
    result.turnId = 'turn_0003'
    history.user() // 8, turn 4
    expect(turnBoundaries(history.items).cutAtOrBefore(6)).toBe(0)
  })

  it('an empty history has nothing to cut', () => {
    const boundaries = turnBoundaries([])
    expect(boundaries.currentTurnId).toBeUndefined()
    expect(boundaries.cutAtOrBefore(10)).toBe(0)
  })
})
