import { createMemory } from '@strata-memory/core'
import { gptTokenizer } from '@strata-memory/core/tokenizer'
import { memoryTools } from '@strata-memory/core/tools'
import { type ModelMessage, pruneMessages } from 'ai'
import { agentLoopEvents, type LoopEvent, PLANTED, pageOf, SYSTEM } from './agent-loop-scenario.ts'
import {
  type AnyMessage,
  containsVerbatim,
  contextTokens,
  dropOldestToBudget,
  messageTokens,
} from './agent-loop-tokens.ts'
import { type Benchmark, type BenchRow, rowOf, significant } from './harness.ts'
import { type DetailReach, reachDetails } from './planted-details.ts'

/** Input budgets: the prompt tokens each model call may use. */
const BUDGETS = [8_000, 32_000]
/** The AI SDK docs' own example of `pruneMessages`. */
const PRUNE = {
  reasoning: 'before-last-message',
  toolCalls: 'before-last-2-messages',
  emptyMessages: 'remove',
} as const
const BASELINE = 'pruneMessages + drop oldest'
/** The exact tokenizer: every figure is counted with it, never with the counter Strata budgets with. */
const exact = gptTokenizer({ encoding: 'o200k_base' })

/** What one system gave over the run. */
interface LoopRun {
  /** Exact tokens of the context of each model call. */
  tokens: number[]
  /** The details the model can reach, and how. */
  reachable: DetailReach[]
  /** For each call right after a page fetch: whether the context shows that page whole. */
  freshWhole: boolean[]
  /** Comparison only: calls at which messages were dropped to fit the budget. */
  trimmed?: number
}

/** Strata: the run through thread.append/enter/exit, `thread.context()` before every model call. */
async function runStrata(
  events: readonly LoopEvent[],
  budget: number,
  reportUsage: boolean,
): Promise<LoopRun> {
  const memory = createMemory({
    compaction: {
      budget: { inputTokens: budget },
      autoTransitions: {},
    },
  })
  const thread = await memory.thread(`bench.agent-loop.${budget}.${reportUsage ? 'usage' : 'plain'}`)
  const tokens: number[] = []
  let last: AnyMessage[] = []
  const freshWhole: boolean[] = []
  let page: string | undefined
  const modelCall = async () => {
    const { messages } = await thread.context({ system: SYSTEM })
    const count = contextTokens(messages, exact)
    tokens.push(count)
    last = messages
    if (page !== undefined) freshWhole.push(containsVerbatim(messages, page))
    page = undefined
    if (reportUsage) await thread.reportUsage({ inputTokens: count })
  }
  for (const event of events) {
    if (event.kind === 'request') await thread.append(event.message as never, { format: 'ai-sdk' })
    else if (event.kind === 'enter')
      await thread.enter(event.level, { title: event.title, instructions: event.instructions })
    else if (event.kind === 'exit') await thread.exit({ outcome: 'complete', summary: event.summary })
    else {
      await modelCall()
      if (event.kind !== 'step') continue
      await thread.append(structuredClone(event.messages) as never, { format: 'ai-sdk' })
      page = pageOf(event)
    }
  }
  const reachable = await reachDetails(memoryTools(thread).memory_query, last, PLANTED)
  return { tokens, reachable, freshWhole }
}

/** The comparison: the AI SDK history, `pruneMessages`, then the oldest messages dropped to the budget. */
function runComparison(events: readonly LoopEvent[], budget: number): LoopRun {
  const history: ModelMessage[] = [{ role: 'system', content: SYSTEM }]
  const tokens: number[] = []
  let last: ModelMessage[] = []
  const freshWhole: boolean[] = []
  let page: string | undefined
  let trimmed = 0
  const count = (message: ModelMessage) => messageTokens(message, exact)
  for (const event of events) {
    if (event.kind === 'request') history.push(event.message)
    // The scope changes the application makes are told to the model as assistant text, as an agent says them.
    else if (event.kind === 'enter')
      history.push({
        role: 'assistant',
        content: `Starting ${event.level} "${event.title}": ${event.instructions}`,
      })
    else if (event.kind === 'exit') history.push({ role: 'assistant', content: `Finished: ${event.summary}` })
    else {
      const pruned = pruneMessages({ messages: history, ...PRUNE })
      last = dropOldestToBudget(pruned, { budget, count })
      if (last.length < pruned.length) trimmed++
      tokens.push(last.reduce((sum, message) => sum + count(message), 0))
      if (page !== undefined) freshWhole.push(containsVerbatim(last, page))
      page = undefined
      if (event.kind !== 'step') continue
      history.push(...structuredClone(event.messages))
      page = pageOf(event)
    }
  }
  const reachable = PLANTED.map((detail) => ({
    detail,
    how: containsVerbatim(last, detail.value) ? ('verbatim' as const) : ('lost' as const),
  }))
  return { tokens, reachable, freshWhole, trimmed }
}

const format = (value: number) => Math.round(value).toLocaleString('en-US')
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
const overBudget = (run: LoopRun, budget: number) => run.tokens.filter((tokens) => tokens > budget).length
const reachedShare = (run: LoopRun) =>
  run.reachable.filter((entry) => entry.how !== 'lost').length / run.reachable.length
const freshShare = (run: LoopRun) => run.freshWhole.filter(Boolean).length / run.freshWhole.length
const mark = (met: boolean) => (met ? 'met' : 'NOT MET')

/** The summary line of one system at one budget, with the targets marked for Strata's runs. */
function summary(name: string, run: LoopRun, budget: number, comparison?: LoopRun): string {
  const over = overBudget(run, budget)
  const share = reachedShare(run)
  const ways = ['verbatim', 'memory_query', 'lost'].map(
    (how) => `${how} ${run.reachable.filter((entry) => entry.how === how).length}`,
  )
  const lost = run.reachable.flatMap(({ detail, how, hits }) =>
    how !== 'lost'
      ? []
      : [
          hits === undefined
            ? detail.value
            : `${detail.value} (memory_query "${detail.query}": ${hits} ${hits === 1 ? 'hit' : 'hits'}, none showing it)`,
        ],
  )
  let line =
    `- ${format(budget)} budget, ${name}: ${run.tokens.length} calls, ${over} over budget` +
    (comparison ? ` [target 0: ${mark(over === 0)}]` : '') +
    `, max ${format(Math.max(...run.tokens))}, mean ${format(mean(run.tokens))} tokens`
  if (comparison) {
    const rate = mean(run.tokens) / mean(comparison.tokens)
    line += `, ${significant(rate)}× the comparison's mean [target ≤ 1: ${mark(rate <= 1)}]`
  }
  line += `; details reachable ${Math.round(share * 100)}% (${ways.join(', ')})`
  if (comparison) line += ` [target 100%: ${mark(share === 1)}]`
  line += `; the page just fetched whole at ${run.freshWhole.filter(Boolean).length} of ${run.freshWhole.length} calls`
  if (run.trimmed !== undefined) line += `; oldest messages dropped at ${run.trimmed} calls`
  return lost.length > 0 ? `${line}; lost: ${lost.join(', ')}` : line
}

/**
 * One user request worked through about 170 tool steps: a project of six tasks, each searching,
 * fetching pages of 2–6k tokens and taking notes, with details planted early (in the request and in
 * the first pages). Before each model call, Strata's `thread.context()` and the comparison's history
 * (`pruneMessages`, then the oldest messages dropped to the budget) are counted with the exact
 * tokenizer against the input budget; at the end, each planted detail must be verbatim in the last
 * context or in the answer of one `memory_query` (Strata only; the comparison has no memory).
 */
const benchmark: Benchmark = {
  name: 'agent-loop',
  description:
    'one request, ~170 tool steps with 2–6k-token pages, in scopes: context tokens per call against 8k and 32k input budgets and planted details reachable, against pruneMessages + drop oldest',
  async run({ progress }) {
    const events = agentLoopEvents()
    const rows: BenchRow[] = []
    const notes: string[] = []
    for (const budget of BUDGETS) {
      const started = performance.now()
      const comparison = runComparison(events, budget)
      const variants = [
        { usage: 'none', name: 'strata (no usage reported)', run: await runStrata(events, budget, false) },
        { usage: 'exact', name: 'strata (exact usage reported)', run: await runStrata(events, budget, true) },
      ]
      for (const { usage, run } of variants) {
        const params = { budget, usage, calls: run.tokens.length }
        const tokens = { unit: 'tokens' as const, baselineName: BASELINE }
        rows.push(
          rowOf(
            'context-tokens/mean',
            params,
            { strata: mean(run.tokens), baseline: mean(comparison.tokens) },
            tokens,
          ),
          rowOf(
            'context-tokens/max',
            params,
            { strata: Math.max(...run.tokens), baseline: Math.max(...comparison.tokens) },
            tokens,
          ),
          rowOf(
            'calls-over-budget',
            params,
            { strata: overBudget(run, budget), baseline: overBudget(comparison, budget) },
            { unit: 'calls', baselineName: BASELINE },
          ),
          rowOf(
            'details-reachable',
            params,
            { strata: reachedShare(run), baseline: reachedShare(comparison) },
            { unit: 'share', baselineName: BASELINE },
          ),
          rowOf(
            'fresh-page-whole',
            params,
            { strata: freshShare(run), baseline: freshShare(comparison) },
            { unit: 'share', baselineName: BASELINE },
          ),
        )
      }
      notes.push(
        ...variants.map(({ name, run }) => summary(name, run, budget, comparison)),
        summary(BASELINE, comparison, budget),
      )
      progress(
        `agent-loop: ${format(budget)} budget in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      )
    }
    const steps = events.filter((event) => event.kind === 'step')
    const pages = steps.flatMap((event) => {
      const page = pageOf(event)
      return page === undefined ? [] : [exact.count(page)]
    })
    const history = steps.reduce((sum, event) => sum + contextTokens(event.messages, exact), 0)
    notes.unshift(
      `Run: 1 request, ${steps.length} tool steps + the answer = ${steps.length + 1} model calls; ${pages.length} pages of ` +
        `${format(Math.min(...pages))}–${format(Math.max(...pages))} tokens; the full history is ${format(history)} tokens. ` +
        `${PLANTED.length} planted details (${PLANTED.filter((detail) => detail.source === 'request').length} in the request, the rest in the first pages).`,
      `Tokens: exact (gpt-tokenizer o200k_base, ${4} tokens a message). Strata: budget: { inputTokens: budget }, ` +
        'autoTransitions on, default estimator inside. ' +
        `Comparison: pruneMessages(${JSON.stringify(PRUNE)}), then the oldest messages dropped (system kept, tool pairs whole).`,
      "Reachable: verbatim in the last context, or (Strata) in the answer of one memory_query whose text is a phrase from the detail's sentence, not the value.",
      "Targets for Strata: 0 calls over budget, 100% of the details reachable, mean context tokens ≤ the comparison's. " +
        'Row fresh-page-whole (no target): the share of calls right after a fetch whose context shows that page whole.',
    )
    return { rows, notes }
  },
}

export default benchmark
