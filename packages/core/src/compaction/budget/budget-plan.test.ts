import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  brokenInvariants,
  type HistoryCommand,
  historyFromCommands,
  TestHistory,
} from '../../testing/test-history'
import { isContextMemoryItem } from '../../views'
import { inputBudget, planBudgetCompaction, shouldCompact } from './budget-plan'

const invalid = expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' })

describe('inputBudget', () => {
  it('is the context window minus the output and the margin', () => {
    expect(inputBudget({ maxOutputTokens: 8_000 })).toBe(190_000)
    expect(inputBudget({ maxContextTokens: 32_000, maxOutputTokens: 4_000, safetyMargin: 0 })).toBe(28_000)
    expect(inputBudget({ maxContextTokens: 10, maxOutputTokens: 8, safetyMargin: 1 })).toBe(1)
  })

  it('rejects non-integers, non-positive values and an empty budget', () => {
    for (const options of [
      { maxOutputTokens: 0 },
      { maxOutputTokens: 1.5 },
      { maxContextTokens: -1, maxOutputTokens: 1 },
      { maxOutputTokens: 1, safetyMargin: -1 },
      { maxContextTokens: 10, maxOutputTokens: 8, safetyMargin: 2 },
      {} as { maxOutputTokens: number },
    ]) {
      expect(() => inputBudget(options)).toThrow(invalid)
    }
  })
})

describe('shouldCompact', () => {
  const budget = 10_000
  it.each([
    [0, 'none'],
    [8_000, 'none'],
    [8_001, 'early'],
    [10_000, 'early'],
    [10_001, 'hard'],
  ] as const)('%i reported tokens of a 10 000 budget → %s', (reportedInputTokens, expected) => {
    expect(shouldCompact({ reportedInputTokens, inputBudget: budget })).toBe(expected)
  })

  it('honours another ratio', () => {
    expect(shouldCompact({ reportedInputTokens: 5_000, inputBudget: budget, compactionRatio: 0.5 })).toBe(
      'none',
    )
    expect(shouldCompact({ reportedInputTokens: 5_001, inputBudget: budget, compactionRatio: 0.5 })).toBe(
      'early',
    )
  })

  it('rejects a ratio outside (0, 1] and bad counts', () => {
    expect(() => shouldCompact({ reportedInputTokens: 1, inputBudget: 10, compactionRatio: 0 })).toThrow(
      invalid,
    )
    expect(() => shouldCompact({ reportedInputTokens: 1, inputBudget: 10, compactionRatio: 1.2 })).toThrow(
      invalid,
    )
    expect(() => shouldCompact({ reportedInputTokens: -1, inputBudget: 10 })).toThrow(invalid)
    expect(() => shouldCompact({ reportedInputTokens: 1, inputBudget: 0 })).toThrow(invalid)
  })
})

describe('planBudgetCompaction', () => {
  it('keeps the current turn and the 4 turns before it raw, and groups the rest per turn', () => {
    const history = TestHistory.plain(7) // turn n is seqs 2n-1, 2n; turn 7 is current
    const plan = planBudgetCompaction(history.items)
    expect(plan).toEqual({
      turns: [
        { turnId: 'turn_0001', seqs: [1, 2], range: { fromSeq: 1, toSeq: 2 } },
        { turnId: 'turn_0002', seqs: [3, 4], range: { fromSeq: 3, toSeq: 4 } },
      ],
      seqs: [1, 2, 3, 4],
      range: { fromSeq: 1, toSeq: 4 },
    })
  })

  it('has nothing to do with 5 turns or fewer', () => {
    expect(planBudgetCompaction(TestHistory.plain(5).items)).toBeUndefined()
    expect(planBudgetCompaction(TestHistory.plain(6).items)?.seqs).toEqual([1, 2])
    expect(planBudgetCompaction(TestHistory.plain(2).items, { rawTailTurns: 0 })?.seqs).toEqual([1, 2])
  })

  it('keeps an old turn whose tool result arrived inside the raw tail', () => {
    const history = new TestHistory()
    history.user() // 1, turn 1
    const id = history.call() // 2
    history.user() // 3, turn 2
    history.result(id) // 4: turn 1's result, late
    history.assistant()
    for (let turn = 0; turn < 5; turn++) {
      history.user()
      history.assistant()
    }
    // Turns 1 and 2 are older than the tail (turns 3-6, then 7 current) and are whole before seq 6.
    expect(planBudgetCompaction(history.items)?.turns.map((turn) => turn.seqs)).toEqual([
      [1, 2, 4],
      [3, 5],
    ])
    expect(planBudgetCompaction(history.items, { rawTailTurns: 5 })).toBeUndefined()
  })

  it('never compacts past a pending call', () => {
    const history = TestHistory.plain(1)
    history.user()
    history.call() // turn 2 waits for its result
    for (let turn = 0; turn < 6; turn++) {
      history.user()
      history.assistant()
    }
    expect(planBudgetCompaction(history.items)?.seqs).toEqual([1, 2])
  })
})

const commands: fc.Arbitrary<HistoryCommand[]> = fc.array(
  fc.oneof(
    fc.constant({ kind: 'user' as const }),
    fc.constant({ kind: 'assistant' as const }),
    fc.constant({ kind: 'call' as const }),
    fc.nat().map((n) => ({ kind: 'result' as const, n })),
    fc.constant({ kind: 'fact' as const }),
  ),
  { maxLength: 100, size: 'medium' },
)

describe('planBudgetCompaction keeps whole turns (property)', () => {
  it('never splits a turn, touches the current or a pending turn, or separates a call from its result', () => {
    let planned = 0
    fc.assert(
      fc.property(commands, fc.integer({ min: 0, max: 5 }), (steps, rawTailTurns) => {
        const items = historyFromCommands(steps).items
        const plan = planBudgetCompaction(items, { rawTailTurns })
        if (plan === undefined) return
        planned++
        expect(brokenInvariants(items, new Set(plan.seqs))).toEqual([])
        // The compacted items are exactly the history up to the cut, each in the group of its turn.
        const expected = items.filter((item) => !isContextMemoryItem(item) && item.seq <= plan.range.toSeq)
        expect(plan.seqs).toEqual(expected.map((item) => item.seq))
        for (const turn of plan.turns) {
          expect(turn.seqs).toEqual(
            expected.filter((item) => item.turnId === turn.turnId).map((item) => item.seq),
          )
        }
        // The raw tail holds at least rawTailTurns turns besides the current one.
        const kept = new Set(items.filter((item) => !plan.seqs.includes(item.seq)).map((item) => item.turnId))
        expect(kept.size).toBeGreaterThanOrEqual(rawTailTurns + 1)
      }),
      { numRuns: 500 },
    )
    expect(planned).toBeGreaterThan(50)
  })
})
