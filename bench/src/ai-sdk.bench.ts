import type { LanguageModelV4, LanguageModelV4Prompt } from '@ai-sdk/provider'
import { strataMiddleware, toProviderPrompt } from '@strata-memory/ai-sdk'
import { createMemory } from '@strata-memory/core'
import { type ModelMessage, pruneMessages } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { agentThreadOperations, applyOperations } from './agent-thread.ts'
import { streamAnswer } from './ai-sdk-answer.ts'
import { phaseClock } from './ai-sdk-phases.ts'
import { routeRows } from './ai-sdk-route.ts'
import { uiRows } from './ai-sdk-ui.ts'
import { type Benchmark, type BenchRow, measure, median, significant } from './harness.ts'
import { targetRow } from './scale-targets.ts'

const SIZES = [1_000, 10_000]
const BASELINE_NAME = "ai's pruneMessages on the same history"
/** Issue 30's targets for a call's ratio to pruneMessages, by thread size; both history modes. */
const CALL_TARGETS: Record<number, { bound: number; text: string }> = {
  1000: { bound: 1.5, text: '≤ 1.5× pruneMessages' },
  10000: { bound: 0.5, text: '≤ 0.5× pruneMessages' },
}
/** Calls timed phase by phase in each history mode, after the measured ones. */
const PHASE_CALLS = 31

/** A middleware row with its target and whether it is within it. */
function callRow(name: string, size: number, measurement: { strata: number; baseline: number | null }) {
  const target = CALL_TARGETS[size]!
  const ratio = measurement.strata / measurement.baseline!
  return targetRow(name, { items: size }, measurement, {
    unit: 'ms',
    baselineName: BASELINE_NAME,
    target: target.text,
    within: ratio <= target.bound,
  })
}

/**
 * The middleware's added time per call, as a route handler pays it: the app re-sends the whole
 * history plus one new user message; `transformParams` stores the new message and builds the context,
 * and the stream tap passes the answer through, stores it and reports the usage. The thread is a
 * realistic agent thread (scopes, tool calls) of 1k and 10k items written through the public API, in
 * the in-memory store. The baseline is what an app without memory would run on the same history:
 * `pruneMessages` from `ai` (reasoning and tool calls before the last messages removed). Both see the
 * same history, which grows by the two messages of each measured call; the thread's task view grows
 * with it, so later calls render a longer context (the notes give the range). Strata's figure also
 * holds making and reading the provider's stream, which a route pays without Strata too (~0.02 ms).
 * Targets (issue 30), in both history modes: ≤ 1.5× pruneMessages at 1k items, ≤ 0.5× at 10k. After the
 * measured calls, `middleware/phase` rows split further calls by phase (see `phaseClock`), so a
 * regression shows where it is; `route/memory-work` compares a whole chat route's memory work with the
 * persistence guide's (see `routeRows`).
 */
const benchmark: Benchmark = {
  name: 'ai-sdk',
  description:
    "strataMiddleware per call (transformParams + stream tap) at 1k and 10k items, against pruneMessages, with where a call's time goes; a chat route's memory work against the persistence guide's; loadUIMessages against the guide's loadChat; writeMissedTransitions per request",
  async run({ progress }) {
    const rows: BenchRow[] = []
    const notes: string[] = []
    const model = new MockLanguageModelV4() as LanguageModelV4
    for (const size of SIZES) {
      const memory = createMemory()
      const threadId = `bench.ai-sdk.${size}`
      const thread = await memory.thread(threadId)
      await applyOperations(thread, agentThreadOperations(size))
      const items = await thread.items()
      if (items.length !== size) throw new Error(`built ${items.length} items, expected ${size}`)
      // The history the client holds: every conversation message, as the SDK hands it to the model.
      const prompt: LanguageModelV4Prompt = toProviderPrompt(
        items.flatMap((item) =>
          item.type === 'message' && item.scope === undefined
            ? [{ role: item.role, content: item.content }]
            : [],
        ),
      )
      const historyMessages = prompt.length
      const middleware = strataMiddleware({ memory, threadId, history: 'full' })
      // The persistence recipe's calls: only the newest message sent, the default history mode.
      const lastOnly = strataMiddleware({ memory, threadId })
      let sendLast = false
      // The prompt sizes the model was sent: each call adds a question and an answer to the task's
      // view, so later calls send (and Strata renders) a longer context than the first.
      const sentSizes: number[] = []
      let turn = 0
      const call = async () => {
        turn++
        prompt.push({ role: 'user', content: [{ type: 'text', text: `Question ${turn}` }] })
        const params = await (sendLast ? lastOnly : middleware).transformParams!({
          type: 'stream',
          params: { prompt: sendLast ? [prompt.at(-1)!] : [...prompt] },
          model,
        })
        await streamAnswer(sendLast ? lastOnly : middleware, params, model, turn)
        prompt.push({ role: 'assistant', content: [{ type: 'text', text: `Answer ${turn}: done.` }] })
        sentSizes.push(params.prompt.length)
        return params.prompt.length
      }
      const prune = () =>
        pruneMessages({
          messages: prompt as ModelMessage[],
          reasoning: 'before-last-message',
          toolCalls: 'before-last-2-messages',
          emptyMessages: 'remove',
        })
      await call()
      const measurement = await measure({
        strata: call,
        baseline: prune,
        samples: 11,
        minSampleMs: 2,
        warmupMs: 50,
      })
      // Every call must have stored exactly its two new messages: a misaligned history would have
      // stored the whole re-sent history again, and the figures would mean nothing.
      const after = await thread.items()
      if (after.length !== size + 2 * turn) {
        throw new Error(
          `after ${turn} calls the thread holds ${after.length} items, expected ${size + 2 * turn}`,
        )
      }
      rows.push(callRow('middleware/call', size, measurement))
      notes.push(
        `${size.toLocaleString('en-US')} items (${historyMessages.toLocaleString('en-US')} history messages): ` +
          `${significant(measurement.strata)} ms per call vs ${significant(measurement.baseline!)} ms for pruneMessages, ` +
          `ratio ${significant(measurement.ratio!)}; the model was sent ${sentSizes[0]} to ${sentSizes.at(-1)} messages ` +
          `(median ${median(sentSizes)}) instead of the ${historyMessages + 1} to ${historyMessages + 2 * turn - 1} of the history; ` +
          `${turn} calls grew the thread to ${after.length.toLocaleString('en-US')} items.`,
      )
      // The same calls sending only the newest message (history 'auto'), against the same baseline.
      sendLast = true
      const callsBefore = turn
      const lastMeasurement = await measure({
        strata: call,
        baseline: prune,
        samples: 11,
        minSampleMs: 2,
        warmupMs: 50,
      })
      sendLast = false
      const afterLast = await thread.items()
      if (afterLast.length !== size + 2 * turn) {
        throw new Error(
          `sending the last message only, the thread holds ${afterLast.length} items, expected ${size + 2 * turn}`,
        )
      }
      rows.push(callRow('middleware/call-last-message', size, lastMeasurement))
      notes.push(
        `${size.toLocaleString('en-US')} items, only the newest message sent (history 'auto', ${turn - callsBefore} calls): ` +
          `${significant(lastMeasurement.strata)} ms per call vs ${significant(lastMeasurement.baseline!)} ms for pruneMessages on the whole history.`,
      )
      // Where a call's time goes, in both history modes (see phaseClock).
      const clock = phaseClock(thread)
      for (const last of [false, true]) {
        sendLast = last
        for (let index = 0; index < PHASE_CALLS; index++) await clock.time(call)
        const phases = clock.rows({ items: size, history: last ? 'last message' : 'full' })
        rows.push(...phases)
        notes.push(
          `${size.toLocaleString('en-US')} items, ${last ? 'only the newest message sent' : 'full history re-sent'}, median ms per call by phase: ` +
            phases.map((row) => `${row.params.phase} ${row.strata}`).join(', ') +
            '.',
        )
      }
      clock.restore()
      sendLast = false
      progress(`ai-sdk: ${size.toLocaleString('en-US')} items measured`)
    }
    const route = await routeRows(SIZES, progress)
    rows.push(...route.rows)
    notes.push(...route.notes)
    const ui = await uiRows(SIZES, progress)
    rows.push(...ui.rows)
    notes.push(...ui.notes)
    return { rows, notes }
  },
}

export default benchmark
