import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  trimMessages,
} from '@langchain/core/messages'
import { createMemory, type MessageInput, type MessagePart, tokenEstimator } from '@strata-memory/core'
import {
  type CoreMessage,
  fromLangChainMessage,
  strataMiddleware,
  toLangChainMessage,
} from '@strata-memory/langchain'
import { agentThreadOperations, applyOperations, type Operation } from './agent-thread.ts'
import { type Benchmark, type BenchRow, measure, median, rowOf, significant } from './harness.ts'
import { CHECKPOINT_TURNS, checkpointBytesPerTurn, RESULT_BYTES } from './langchain-checkpoint.ts'

const SIZES = [1_000, 10_000]
const BUDGET = 8_000
const BASELINE_NAME = "@langchain/core's trimMessages (strategy last, the same budget, a memoised counter)"

type WrapModelCall = (
  request: Record<string, unknown>,
  handler: (request: { messages: BaseMessage[] }) => Promise<AIMessage>,
) => Promise<AIMessage>

/**
 * The middleware's added time per model call, as `createAgent` pays it with a checkpointer: the state
 * re-sends the whole history plus one new user message; `wrapModelCall` stores the new message, builds
 * the context under a token budget, maps it to LangChain messages, calls the handler (a model that
 * answers at once), then stores the answer and reports its usage. The thread is a realistic agent
 * thread (scopes, tool calls) of 1k and 10k items written through the public API, in the in-memory
 * store. The baseline is what an app without memory would run on the same history to fit the same
 * budget: `trimMessages` with strategy `last` and a token counter memoised per message id (core's
 * estimator, counted once per message; `trimMessages` copies the messages it gets, so the memo cannot
 * be keyed by object). Both see the same history, which grows by two messages a call. Messages carry
 * ids, as LangGraph's state gives them.
 */
/** Core messages as the middleware stores them: the tool messages that answer one step merged into one. */
function mergeToolRuns(messages: readonly CoreMessage[]): CoreMessage[] {
  const merged: CoreMessage[] = []
  for (const message of messages) {
    const last = merged.at(-1)
    if (message.role === 'tool' && last?.role === 'tool')
      merged[merged.length - 1] = { ...last, content: [...last.content, ...message.content] }
    else merged.push(message)
  }
  return merged
}

/**
 * The workload as a LangChain agent writes it: each appended message goes through LangChain's message
 * types (tool outputs become the JSON strings a `ToolMessage` holds) and back, as the middleware stores
 * it; the LangChain messages, in order, are the agent's state.
 */
function throughLangChain(operations: readonly Operation[]) {
  const state: BaseMessage[] = []
  const mapped = operations.map((operation): Operation => {
    if (operation.kind !== 'append') return operation
    const messages = operation.messages.flatMap((message: MessageInput) =>
      toLangChainMessage({
        role: message.role,
        content:
          typeof message.content === 'string'
            ? [{ type: 'text', text: message.content } as MessagePart]
            : message.content,
      }),
    )
    // LangGraph's state gives every message an id (add_messages); the baseline's counter memoises on it.
    for (const message of messages) message.id = `msg-${state.length + messages.indexOf(message)}`
    state.push(...messages)
    return { kind: 'append', messages: mergeToolRuns(messages.map(fromLangChainMessage)) }
  })
  return { state, operations: mapped }
}

const benchmark: Benchmark = {
  name: 'langchain',
  description:
    "strataMiddleware per model call at 1k and 10k items, against trimMessages (last, same budget); checkpoint bytes after 30 turns with state: 'compact', against the default state",
  async run({ progress }) {
    const rows: BenchRow[] = []
    const notes: string[] = []
    const estimator = tokenEstimator()
    // trimMessages copies the messages it is given, so the memo is keyed by the message id.
    const counted = new Map<string, number>()
    const countOne = (message: BaseMessage) => {
      const key = message.id ?? ''
      let tokens = key === '' ? undefined : counted.get(key)
      if (tokens === undefined) {
        tokens = estimator.count(message.text) + 4
        if (key !== '') counted.set(key, tokens)
      }
      return tokens
    }
    const tokenCounter = (messages: BaseMessage[]) =>
      messages.reduce((sum, message) => sum + countOne(message), 0)
    for (const size of SIZES) {
      const memory = createMemory({ compaction: { budget: { inputTokens: BUDGET } } })
      const threadId = `bench.langchain.${size}`
      const thread = await memory.thread(threadId)
      const { state: history, operations } = throughLangChain(agentThreadOperations(size))
      await applyOperations(thread, operations)
      // Every message ever stored, active or archived by budget compaction.
      const messagesStored = async () =>
        [...(await memory.store.read(threadId)), ...(await memory.store.readArchive(threadId))].filter(
          (item) => item.type === 'message',
        ).length
      const written = operations.reduce(
        (sum, operation) =>
          sum +
          (operation.kind === 'append' ? operation.messages.length : operation.kind === 'enter' ? 1 : 0),
        0,
      )
      const before = await messagesStored()
      if (before !== written) throw new Error(`stored ${before} messages, expected ${written}`)
      const historyMessages = history.length
      const middleware = strataMiddleware({ memory, history: 'full' })
      const wrapModelCall = middleware.wrapModelCall as unknown as WrapModelCall
      const systemMessage = new SystemMessage('You are an agent.')
      const sentSizes: number[] = []
      let turn = 0
      const call = async () => {
        turn++
        history.push(new HumanMessage({ content: `Question ${turn}`, id: `question-${turn}` }))
        const answer = await wrapModelCall(
          {
            messages: history,
            systemMessage,
            systemPrompt: systemMessage.text,
            tools: [],
            state: { messages: history },
            runtime: { configurable: { thread_id: threadId } },
          },
          async (request) => {
            sentSizes.push(request.messages.length)
            return new AIMessage({
              content: `Answer ${turn}: done.`,
              usage_metadata: { input_tokens: 900 + turn, output_tokens: 6, total_tokens: 906 + turn },
            })
          },
        )
        answer.id = `answer-${turn}`
        history.push(answer)
        return answer
      }
      const trim = () => trimMessages(history, { strategy: 'last', maxTokens: BUDGET, tokenCounter })
      await call()
      const measurement = await measure({
        strata: call,
        baseline: trim,
        samples: 11,
        minSampleMs: 2,
        warmupMs: 50,
      })
      // Every call must have stored exactly its two new messages: a misaligned history would have
      // stored the whole re-sent history again, and the figures would mean nothing.
      const after = await messagesStored()
      if (after !== before + 2 * turn) {
        throw new Error(
          `after ${turn} calls the thread holds ${after} messages, expected ${before + 2 * turn}`,
        )
      }
      rows.push(rowOf('middleware/call', { items: size }, measurement, { baselineName: BASELINE_NAME }))
      notes.push(
        `${size.toLocaleString('en-US')} items (${historyMessages.toLocaleString('en-US')} history messages): ` +
          `${significant(measurement.strata)} ms per call vs ${significant(measurement.baseline!)} ms for trimMessages, ` +
          `ratio ${significant(measurement.ratio!)}; the model was sent ${sentSizes[0]} to ${sentSizes.at(-1)} messages ` +
          `(median ${median(sentSizes)}); ${turn} calls.`,
      )
      progress(`langchain: ${size.toLocaleString('en-US')} items measured`)
    }
    const compact = await checkpointBytesPerTurn('compact')
    const full = await checkpointBytesPerTurn('full')
    rows.push(
      rowOf(
        'checkpoint/bytes',
        { turns: CHECKPOINT_TURNS, resultBytes: RESULT_BYTES },
        { strata: compact.at(-1)!, baseline: full.at(-1)! },
        { unit: 'bytes', baselineName: "the same agent with strataMiddleware's default state ('full')" },
      ),
    )
    notes.push(
      `checkpoint bytes per turn (MemorySaver's serialised newest checkpoint), state 'compact': ${compact.join(' ')}; ` +
        `default state: ${full.join(' ')}.`,
    )
    progress('langchain: checkpoint sizes measured')
    notes.push(
      "trimMessages' time: with strategy 'last' it calls the counter about once per message it drops, each time on every " +
        'message not yet dropped (counted on this machine: 8,735 calls and 40 million message counts for 9,000 messages), ' +
        'so even a memoised counter sums O(n²) counts on a long history; it also copies every message it is given. Strata ' +
        'compares the stored tail with the end of the history and renders the level view, which does not grow with the thread.',
    )
    return { rows, notes }
  },
}

export default benchmark
