import { toProviderPrompt } from '@strata-memory/ai-sdk'
import type { ContextMessage, Thread } from '@strata-memory/core'
import { type BenchRow, median, significant } from './harness.ts'

/** The phases of one middleware call, in the order the call runs them. */
export const PHASES = ['history matching', 'append', 'context', 'fit', 'serialization', 'adapter'] as const
export type Phase = (typeof PHASES)[number]

/** The thread methods the middleware calls, by the phase they belong to. */
const TIMED: Record<string, Phase> = {
  divergence: 'history matching',
  appendUnseen: 'append',
  append: 'append',
  reportUsage: 'append',
  checkFit: 'fit',
  context: 'context',
}

/** Times each of a bench's serializations this many times, so a sub-0.1 ms figure is above the clock. */
const SERIALIZATIONS = 20

type Method = (...args: unknown[]) => Promise<unknown>

/**
 * Where a middleware call's time goes, from the thread methods it calls: the middleware gets this
 * thread object from `memory.thread`, so wrapping the object's methods times the real call path.
 * - history matching: `divergence`, the re-sent prompt's newest messages mapped and aligned with the
 *   stored tail (`appendUnseen` aligns again on the list already mapped, counted under append);
 * - append: `appendUnseen` (the request), `append` (the response) and `reportUsage`;
 * - context: `context`, the view, citations and rendering (with a budget, its fit too: the fit
 *   inside `context` is not a method of its own);
 * - fit: `checkFit`, the budget check before a rewind (no budget, no fit);
 * - serialization: `toProviderPrompt` of the call's context, timed on its own after the call;
 * - adapter: the rest of the call (the prompt split, the holds, the stream tap, serialization taken out).
 */
export function phaseClock(thread: Thread) {
  const methods = thread as unknown as Record<string, Method>
  const spent = new Map<Phase, number>()
  let lastContext: ContextMessage[] | undefined
  for (const [name, phase] of Object.entries(TIMED)) {
    const original = methods[name]!.bind(thread)
    methods[name] = async (...args: unknown[]) => {
      const start = performance.now()
      try {
        const result = await original(...args)
        if (name === 'context') lastContext = (result as { messages: ContextMessage[] }).messages
        return result
      } finally {
        spent.set(phase, (spent.get(phase) ?? 0) + performance.now() - start)
      }
    }
  }
  const calls: Record<Phase, number>[] = []
  return {
    /** Runs one call and records its phases. */
    async time(call: () => Promise<unknown>) {
      spent.clear()
      lastContext = undefined
      const start = performance.now()
      await call()
      const total = performance.now() - start
      let serialization = 0
      if (lastContext !== undefined) {
        const messages = lastContext
        const serialized = performance.now()
        for (let round = 0; round < SERIALIZATIONS; round++) toProviderPrompt(messages)
        serialization = (performance.now() - serialized) / SERIALIZATIONS
      }
      const phases = Object.fromEntries(PHASES.map((phase) => [phase, spent.get(phase) ?? 0])) as Record<
        Phase,
        number
      >
      phases.serialization = serialization
      const timed = PHASES.reduce((sum, phase) => (phase === 'adapter' ? sum : sum + phases[phase]), 0)
      phases.adapter = Math.max(0, total - timed)
      calls.push(phases)
    },
    /** The median of each phase over the calls timed so far, as rows; starts a new series. */
    rows(params: Record<string, string | number>): BenchRow[] {
      const rows = PHASES.map(
        (phase): BenchRow => ({
          case: 'middleware/phase',
          params: { ...params, phase, target: 'none (where middleware/call spends its time)' },
          unit: 'ms',
          strata: significant(median(calls.map((call) => call[phase]))),
          baseline: null,
          baselineName: null,
          ratio: null,
        }),
      )
      calls.length = 0
      return rows
    },
    /** Puts the thread's own methods back. */
    restore() {
      for (const name of Object.keys(TIMED)) delete methods[name]
    },
  }
}
