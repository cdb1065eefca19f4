import {
  createMemory,
  type MessageInput,
  patternSummarizer,
  type Summarizer,
  type Thread,
  tokenEstimator,
} from '@strata-memory/core'
import { conversationTurn, MESSAGE_TOKENS, TOOL_EVERY } from './compaction-conversation.ts'
import { type Benchmark, type BenchRow, median, rowOf, significant } from './harness.ts'

const TURNS = 1_000
/** Rows are written every this many turns. */
const STEP = 100
/** The turn the flatness check compares the last turn with. */
const FLAT_FROM = 200
const BUDGET = { maxContextTokens: 32_000, maxOutputTokens: 4_000 }
const BASELINE_TOKENS = 'full history'
const BASELINE_LATENCY = 'context() with compaction off'
/** How long the slow summarizer takes per call, standing in for an LLM. */
const SLOW_SUMMARIZER_MS = 100
/**
 * The model call an agent makes between two turns, simulated on the slow thread: without a wait on a
 * timer the loop never yields to the event loop, and a summarizer waiting on one would never finish.
 */
const MODEL_CALL_MS = 5
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The pattern summarizer, answering only after a delay, as an LLM summarizer would. */
function slowSummarizer(delayMs: number): Summarizer {
  const pattern = patternSummarizer()
  return {
    name: `pattern, ${delayMs} ms late`,
    async summarize(items, options) {
      await new Promise((resolve) => setTimeout(resolve, delayMs))
      return pattern.summarize(items, options)
    },
  }
}

/** What one `context()` call gave, and how long the caller waited for it. */
interface Sample {
  contextTokens: number
  totalTokens: number
  ms: number
}

/** Calls `thread.context()` and times it: only that call is inside the timed region. */
async function timedContext(thread: Thread): Promise<Sample> {
  const started = performance.now()
  const { stats } = await thread.context()
  const ms = performance.now() - started
  return { contextTokens: stats.contextTokens, totalTokens: stats.totalTokens, ms }
}

const format = (value: number) => value.toLocaleString('en-US')

/**
 * A 1 000-turn conversation (user and assistant messages of about 200 tokens, a tool call and its
 * result every third turn) played into three threads of three memories: the waterfall with the
 * pattern summarizer, a 32k token budget, and compaction off. Each turn appends the turn's messages,
 * then calls `context()` and `reportUsage({ inputTokens: stats.contextTokens })`, as an agent loop does
 * after a model call: the provider's figure is simulated by Strata's own estimate of the context.
 */
const benchmark: Benchmark = {
  name: 'compaction',
  description: `context tokens and context() time over a ${format(TURNS)}-turn conversation, waterfall and 32k budget`,
  async run({ progress }) {
    const counter = tokenEstimator()
    const waterfallMemory = createMemory({ compaction: { waterfall: {} } })
    const budgetMemory = createMemory({ compaction: { budget: BUDGET } })
    const waterfall = await waterfallMemory.thread('bench.compaction.waterfall')
    const budget = await budgetMemory.thread('bench.compaction.budget')
    const off = await createMemory().thread('bench.compaction.off')
    const slowMemory = createMemory({
      summarizer: slowSummarizer(SLOW_SUMMARIZER_MS),
      compaction: { waterfall: {} },
    })
    const slow = await slowMemory.thread('bench.compaction.slow')
    let slowRunning = 0
    let slowRuns = 0
    slowMemory.on('compaction-start', () => {
      slowRunning++
      slowRuns++
    })
    slowMemory.on('compaction-end', () => {
      slowRunning--
    })

    // Compactions in flight, to tell how many timed context() calls ran beside one.
    let waterfallRunning = 0
    let waterfallRuns = 0
    let waterfallErrors = 0
    waterfallMemory.on('compaction-start', () => {
      waterfallRunning++
      waterfallRuns++
    })
    waterfallMemory.on('compaction-end', (event) => {
      waterfallRunning--
      if (event.error !== undefined) waterfallErrors++
    })
    let budgetRuns = 0
    let budgetErrors = 0
    budgetMemory.on('compaction-end', (event) => {
      if (event.skipped !== undefined) return
      budgetRuns++
      if (event.error !== undefined) budgetErrors++
    })

    const appendAndTime = async (thread: Thread, messages: MessageInput[]) => {
      await thread.append(structuredClone(messages))
      // Straight after the append, which starts a waterfall compaction when one is due.
      const running = (waterfallRunning > 0 && thread === waterfall) || (slowRunning > 0 && thread === slow)
      const sample = await timedContext(thread)
      await thread.reportUsage({ inputTokens: sample.contextTokens })
      return { sample, running }
    }

    const rows: BenchRow[] = []
    const tokenRows: BenchRow[] = []
    const waterfallTokens: number[] = []
    const budgetTokens: number[] = []
    const totals: number[] = []
    const waterfallMs: number[] = []
    const offMs: number[] = []
    const budgetMs: number[] = []
    const slowMs: number[] = []
    const slowTokens: number[] = []
    let overlapped = 0
    let slowOverlapped = 0
    let messageCount = 0
    const started = performance.now()
    for (let turn = 1; turn <= TURNS; turn++) {
      const messages = conversationTurn(turn, counter)
      messageCount += messages.length

      // Waterfall and compaction off alternate which goes first, so drift and GC hit both alike.
      const order = turn % 2 === 0 ? [waterfall, off] : [off, waterfall]
      for (const thread of order) {
        const { sample, running } = await appendAndTime(thread, messages)
        if (thread === off) {
          offMs.push(sample.ms)
          continue
        }
        waterfallMs.push(sample.ms)
        waterfallTokens.push(sample.contextTokens)
        totals.push(sample.totalTokens)
        if (running) overlapped++
      }
      // Budget compaction runs inside context() when the last reported usage asked for it.
      const { sample } = await appendAndTime(budget, messages)
      budgetMs.push(sample.ms)
      budgetTokens.push(sample.contextTokens)
      // The waterfall again, with a summarizer as slow as an LLM: compactions overlap many turns.
      const slowTurn = await appendAndTime(slow, messages)
      await sleep(MODEL_CALL_MS)
      slowMs.push(slowTurn.sample.ms)
      slowTokens.push(slowTurn.sample.contextTokens)
      if (slowTurn.running) slowOverlapped++
      if (sample.totalTokens !== totals.at(-1)) {
        throw new Error(`turn ${turn}: the threads disagree on the full history's tokens`)
      }

      if (turn % STEP === 0) {
        const params = { turn }
        const total = totals.at(-1)!
        const tokens = { unit: 'tokens' as const, baselineName: BASELINE_TOKENS }
        // Both policies saw-tooth with a period shorter than 100 turns, so a single turn lands anywhere
        // between the low and the high end; the mean over the 100-turn window shows the trend.
        const windowParams = { turns: `${turn - STEP + 1}-${turn}` }
        const average = (values: readonly number[]) =>
          Math.round(values.slice(-STEP).reduce((sum, value) => sum + value, 0) / STEP)
        const totalMean = average(totals)
        tokenRows.push(
          rowOf('tokens/waterfall', params, { strata: waterfallTokens.at(-1)!, baseline: total }, tokens),
          rowOf('tokens/budget', params, { strata: budgetTokens.at(-1)!, baseline: total }, tokens),
          rowOf(
            'tokens/waterfall-mean',
            windowParams,
            { strata: average(waterfallTokens), baseline: totalMean },
            tokens,
          ),
          rowOf(
            'tokens/budget-mean',
            windowParams,
            { strata: average(budgetTokens), baseline: totalMean },
            tokens,
          ),
        )
        const window = { strata: median(waterfallMs.slice(-STEP)), baseline: median(offMs.slice(-STEP)) }
        rows.push(rowOf('latency/context', params, window, { baselineName: BASELINE_LATENCY }))
        progress(`compaction: turn ${format(turn)} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
      }
    }
    // Let a compaction still running finish, outside every timed region, so the process ends clean.
    await waterfall.compact()
    await slow.compact()
    rows.push(
      rowOf(
        'latency/context',
        { turns: TURNS },
        { strata: median(waterfallMs), baseline: median(offMs) },
        { baselineName: BASELINE_LATENCY },
      ),
      rowOf(
        'latency/context',
        { turns: TURNS, summarizerDelayMs: SLOW_SUMMARIZER_MS },
        { strata: median(slowMs), baseline: median(offMs) },
        { baselineName: BASELINE_LATENCY },
      ),
    )

    const at = (values: readonly number[], turn: number) => values[turn - 1]!
    const flat = (name: string, values: readonly number[]) => {
      const later = values.slice(FLAT_FROM - 1)
      const first = at(values, FLAT_FROM)
      const last = at(values, TURNS)
      return (
        `${name}: context ${format(first)} tokens at turn ${FLAT_FROM}, ${format(last)} at turn ${format(TURNS)} ` +
        `(ratio ${significant(last / first)}); between those turns it ranges ${format(Math.min(...later))}–` +
        `${format(Math.max(...later))}.`
      )
    }
    const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
    // A 100-turn window spans several compaction cycles, so its mean does not depend on where in the
    // sawtooth the row's single turn falls.
    const windowMean = (name: string, values: readonly number[]) => {
      const first = mean(values.slice(FLAT_FROM - STEP, FLAT_FROM))
      const last = mean(values.slice(TURNS - STEP, TURNS))
      return (
        `${name} ${format(Math.round(first))} → ${format(Math.round(last))} ` +
        `(ratio ${significant(last / first)})`
      )
    }
    const totalFirst = at(totals, FLAT_FROM)
    const totalLast = at(totals, TURNS)
    const notes = [
      `Flatness, turn ${format(TURNS)} vs turn ${FLAT_FROM}:`,
      `- ${flat('waterfall', waterfallTokens)}`,
      `- ${flat('32k budget', budgetTokens)}`,
      `- full history: ${format(totalFirst)} tokens at turn ${FLAT_FROM}, ${format(totalLast)} at turn ` +
        `${format(TURNS)} (ratio ${significant(totalLast / totalFirst)}, linear: ${TURNS / FLAT_FROM}× the turns).`,
      `- mean context tokens over turns ${FLAT_FROM - STEP + 1}–${FLAT_FROM} vs ${TURNS - STEP + 1}–${TURNS}: ` +
        `${windowMean('waterfall', waterfallTokens)}, ${windowMean('32k budget', budgetTokens)}, ` +
        `${windowMean('full history', totals)}.`,
      '- Both policies give a sawtooth (grow by a turn, drop at each compaction); the rows sample it every ' +
        `${STEP} turns, off its period, so single rows drift between its low and high ends.`,
      `Conversation: ${format(TURNS)} turns, ${format(messageCount)} messages (user and assistant each turn, a ` +
        `tool call and its result every ${TOOL_EVERY}rd turn), aiming at ${MESSAGE_TOKENS} tokens each; ` +
        `${format(Math.round(totalLast / messageCount))} tokens a message on average as Strata counts them ` +
        '(default estimator, message overhead included). Token rows are the context() of that turn.',
      'Provider usage is simulated: after each context() the bench calls reportUsage({ inputTokens }) with ' +
        "Strata's own estimate of that context (stats.contextTokens), not a real provider's count.",
      `Budget: input budget ${format(BUDGET.maxContextTokens - BUDGET.maxOutputTokens - 2_000)} tokens ` +
        `(32k − 4k output − 2k default margin), compaction requested past 80 % of it; ${budgetRuns} budget ` +
        `compactions (${budgetErrors} failed), each run inside the next context() call: budget context() median ` +
        `${significant(median(budgetMs))} ms, max ${significant(Math.max(...budgetMs))} ms.`,
      `Waterfall (window 64, every 64 items): ${waterfallRuns} background compactions (${waterfallErrors} failed).`,
      `Slow summarizer (the pattern summarizer answering ${SLOW_SUMMARIZER_MS} ms late, as an LLM would; ` +
        `each turn of that thread also waits ${MODEL_CALL_MS} ms for a simulated model call, outside the timed region): ` +
        `${slowRuns} background compactions; ${slowOverlapped} of ${format(TURNS)} context() calls ran while ` +
        `one was in flight; context() median ${significant(median(slowMs))} ms, max ` +
        `${significant(Math.max(...slowMs))} ms (row latency/context with summarizerDelayMs). Its context ` +
        `tokens at turn ${FLAT_FROM} and ${format(TURNS)}: ${format(at(slowTokens, FLAT_FROM))} and ` +
        `${format(at(slowTokens, TURNS))} (the summaries land some turns later, so the window grows more between them).`,
      'latency/context: one context() call per turn per thread, timed alone (append, reportUsage and the ' +
        'final compact() are outside the timed region), the median over the turns of each 100-turn window ' +
        `(last row: all ${format(TURNS)} turns). Each context() is called straight after its append; ` +
        `${overlapped} of the waterfall's ${format(TURNS)} calls started while a waterfall compaction was in ` +
        'flight (the pattern summarizer is fast; the compaction never blocks context(), its write queues ' +
        'behind it). The baseline thread has no compaction and renders the whole history.',
    ]
    return { rows: [...tokenRows, ...rows], notes }
  },
}

export default benchmark
