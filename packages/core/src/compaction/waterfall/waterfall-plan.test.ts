import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  brokenInvariants,
  type HistoryCommand,
  historyFromCommands,
  TestHistory,
} from '../../testing/test-history'
import { isContextMemoryItem } from '../../views'
import { planWaterfall, type WaterfallPlan, waterfallTrigger } from './waterfall-plan'

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index)

/** Plans after every item, like an engine would, committing each plan at once. */
function simulate(history: TestHistory, count: number) {
  const plans: WaterfallPlan[] = []
  let state = { summarizedThroughSeq: 0, compactions: 0 }
  const items = history.items.slice(0, count)
  for (let length = 1; length <= items.length; length++) {
    const plan = planWaterfall(items.slice(0, length), state)
    if (plan === undefined) continue
    plans.push(plan)
    state = { summarizedThroughSeq: plan.summarizedThroughSeq, compactions: plan.compactions }
  }
  return plans
}

describe('planWaterfall on a plain user/assistant history', () => {
  it('triggers at exactly 129, 193 and 257 history items', () => {
    const plans = simulate(TestHistory.plain(160), 300)
    expect(plans.map((plan) => plan.trigger)).toEqual([129, 193, 257])
    expect(plans.map((plan) => plan.count)).toEqual([129, 193, 257])
    expect([0, 1, 2, 3].map((n) => waterfallTrigger(n))).toEqual([129, 193, 257, 321])
  })

  it('summarizes the items outside the window, cut back to whole turns', () => {
    const [first, second, third] = simulate(TestHistory.plain(160), 300)
    // At 129 the window is 66-129; seq 65 opens turn 33 (65-66), so the cut is 64 and the window 65-129.
    expect(first).toMatchObject({ range: { fromSeq: 1, toSeq: 64 }, longTermFromPrevious: false })
    expect(first!.shortTermSeqs).toEqual(range(1, 64))
    expect(first!.turnIds).toHaveLength(32)
    expect(second).toMatchObject({ range: { fromSeq: 65, toSeq: 128 }, longTermFromPrevious: true })
    expect(second!.shortTermSeqs).toEqual(range(65, 128))
    expect(third).toMatchObject({ range: { fromSeq: 129, toSeq: 192 }, longTermFromPrevious: true })
    expect(third!.shortTermSeqs).toEqual(range(129, 192))
  })

  it('does not trigger at 128, 130, 192 or 194', () => {
    const items = TestHistory.plain(100).items
    const at = (count: number, compactions: number, summarizedThroughSeq: number) =>
      planWaterfall(items.slice(0, count), { compactions, summarizedThroughSeq })
    expect(at(128, 0, 0)).toBeUndefined()
    expect(at(129, 0, 0)).toBeDefined()
    expect(at(130, 1, 64)).toBeUndefined()
    expect(at(192, 1, 64)).toBeUndefined()
    expect(at(193, 1, 64)).toBeDefined()
    expect(at(194, 2, 128)).toBeUndefined()
  })

  it('after a batch past several thresholds, fires once for the highest one', () => {
    const plan = planWaterfall(TestHistory.plain(100).items.slice(0, 195))
    expect(plan).toMatchObject({
      trigger: 193,
      count: 195,
      compactions: 2,
      range: { fromSeq: 1, toSeq: 130 },
    })
    expect(
      planWaterfall(TestHistory.plain(100).items.slice(0, 196), {
        compactions: 2,
        summarizedThroughSeq: 130,
      }),
    ).toBeUndefined()
  })

  it('does not count facts and summaries', () => {
    const history = TestHistory.plain(64)
    history.fact()
    history.user() // the 129th history item, seq 130
    expect(planWaterfall(history.items)).toMatchObject({ trigger: 129, count: 129, range: { toSeq: 64 } })
  })

  it('grows the window over a long current turn, and waits while nothing can be summarized', () => {
    const history = new TestHistory()
    history.user()
    for (let index = 0; index < 140; index++) history.assistant()
    expect(planWaterfall(history.items)).toBeUndefined()
  })

  it('rejects invalid options with STRATA_INVALID_OPTIONS', () => {
    for (const options of [
      { window: 0 },
      { every: 1.5 },
      { compactions: -1 },
      { summarizedThroughSeq: Number.NaN },
    ]) {
      expect(() => planWaterfall([], options)).toThrow(
        expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' }),
      )
    }
  })
})

const commands: fc.Arbitrary<HistoryCommand[]> = fc.array(
  fc.oneof(
    { arbitrary: fc.constant({ kind: 'user' as const }), weight: 3 },
    { arbitrary: fc.constant({ kind: 'assistant' as const }), weight: 3 },
    { arbitrary: fc.constant({ kind: 'call' as const }), weight: 2 },
    { arbitrary: fc.nat().map((n) => ({ kind: 'result' as const, n })), weight: 4 },
    { arbitrary: fc.constant({ kind: 'fact' as const }), weight: 1 },
  ),
  { minLength: 20, maxLength: 120 },
)

describe('planWaterfall keeps whole turns (property)', () => {
  it('never splits a turn, touches the current or a pending turn, or separates a call from its result', () => {
    let planned = 0
    fc.assert(
      fc.property(
        commands,
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 12 }),
        (steps, window, every) => {
          const items = historyFromCommands(steps).items
          let state = { summarizedThroughSeq: 0, compactions: 0 }
          for (let length = 1; length <= items.length; length++) {
            const prefix = items.slice(0, length)
            const plan = planWaterfall(prefix, { window, every, ...state })
            if (plan === undefined) continue
            const consumed = new Set(
              prefix
                .filter((item) => !isContextMemoryItem(item) && item.seq <= plan.range.toSeq)
                .map((item) => item.seq),
            )
            expect(brokenInvariants(prefix, consumed)).toEqual([])
            planned++
            expect(plan.shortTermSeqs.every((seq) => seq > state.summarizedThroughSeq)).toBe(true)
            state = { summarizedThroughSeq: plan.summarizedThroughSeq, compactions: plan.compactions }
          }
        },
      ),
      { numRuns: 300 },
    )
    expect(planned).toBeGreaterThan(50)
  })
})
