import { Agent } from '@mastra/core/agent'
import { MockMemory } from '@mastra/core/memory'
import { TokenLimiterProcessor } from '@mastra/core/processors'
import { InMemoryStore } from '@mastra/core/storage'
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock'
import { createMemory, inMemoryStore } from '@strata-memory/core'
import { StrataMemory, toDBMessages } from '@strata-memory/mastra'
import { agentThreadOperations, applyOperations } from './agent-thread.ts'
import { type Benchmark, type BenchRow, measure, rowOf, significant } from './harness.ts'
import { recallRows } from './mastra-recall.ts'

const SIZES = [1_000, 10_000]
const BUDGET = 8_000
const BASELINE_NAME =
  "Mastra's own memory (InMemoryStore, lastMessages: all, TokenLimiterProcessor at the same budget)"

/** A model that answers at once, reporting a prompt under the budget, and counts what it was sent. */
function benchModel(sent: number[]) {
  return new MastraLanguageModelV2Mock({
    modelId: 'bench',
    doGenerate: async ({ prompt }) => {
      sent.push(prompt.length)
      return {
        content: [{ type: 'text', text: 'Done.' }],
        finishReason: 'stop',
        usage: { inputTokens: 900, outputTokens: 2, totalTokens: 902 },
        warnings: [],
      }
    },
  })
}

/**
 * The added time of one `agent.generate` call with `StrataMemory`, on a realistic agent thread (scopes,
 * tool calls) of 1k and 10k items written through core's public API, against the same agent on
 * Mastra's own memory: an `InMemoryStore` preloaded with the same messages (as `recall` reads them
 * from Strata), `lastMessages` enough to load them all, and `TokenLimiterProcessor` at the same
 * budget (Strata's `compaction.budget.inputTokens`). Both run the whole agent (Mastra's workflow,
 * processors, a model that answers at once), so the ratio is the whole call's, memory included; both
 * threads grow by the two messages of each measured call.
 */
const benchmark: Benchmark = {
  name: 'mastra',
  description:
    'agent.generate with StrataMemory at 1k and 10k items, against Mastra memory + TokenLimiterProcessor; recall/page at 10k and 100k against 1k',
  async run({ progress }) {
    const rows: BenchRow[] = []
    const notes: string[] = []
    for (const size of SIZES) {
      // The thread is written without compaction, then served by a memory with the budget on the same store.
      const sharedStore = inMemoryStore()
      const builder = new StrataMemory({ memory: createMemory({ store: sharedStore }), tools: false })
      const threadId = `bench/mastra ${size}`
      await builder.saveThread({
        thread: { id: threadId, resourceId: 'bench', createdAt: new Date(), updatedAt: new Date() },
      })
      const built = (await builder.thread(threadId)) as unknown as Parameters<typeof applyOperations>[0]
      await applyOperations(built, agentThreadOperations(size))
      const items = await built.items()
      if (items.length !== size) throw new Error(`built ${items.length} items, expected ${size}`)
      const memory = createMemory({ store: sharedStore, compaction: { budget: { inputTokens: BUDGET } } })
      const strata = new StrataMemory({ memory, tools: false })
      const thread = await strata.thread(threadId)

      const storage = new InMemoryStore()
      const store = (await storage.getStore('memory'))!
      await store.saveThread({
        thread: { id: threadId, resourceId: 'bench', createdAt: new Date(), updatedAt: new Date() },
      })
      const preloaded = toDBMessages(items, { threadId, resourceId: 'bench' })
      await store.saveMessages({ messages: preloaded })
      const mastraMemory = new MockMemory({ storage, options: { lastMessages: preloaded.length + 1_000 } })

      const strataSent: number[] = []
      const mastraSent: number[] = []
      const strataAgent = new Agent({
        id: 'bench-strata',
        name: 'bench-strata',
        instructions: 'Work the task.',
        model: benchModel(strataSent),
        memory: strata,
      })
      const mastraAgent = new Agent({
        id: 'bench-mastra',
        name: 'bench-mastra',
        instructions: 'Work the task.',
        model: benchModel(mastraSent),
        memory: mastraMemory,
        inputProcessors: [new TokenLimiterProcessor({ limit: BUDGET })],
      })
      const options = { memory: { thread: threadId, resource: 'bench' } }
      let turn = 0
      const strataCall = () => strataAgent.generate(`Question ${++turn}`, options)
      let baselineTurn = 0
      const mastraCall = () => mastraAgent.generate(`Question ${++baselineTurn}`, options)
      await strataCall()
      await mastraCall()
      const measurement = await measure({
        strata: strataCall,
        baseline: mastraCall,
        samples: 9,
        minSamples: 3,
        minSampleMs: 2,
        warmupMs: 100,
        maxMs: 20_000,
      })
      // Every Strata call stored its question and answer once.
      const after = await thread.items()
      if (
        after.filter((item) => item.type === 'message').length !==
        items.filter((item) => item.type === 'message').length + 2 * turn
      ) {
        throw new Error(`after ${turn} calls the Strata thread does not hold 2 new messages per call`)
      }
      rows.push(rowOf('memory/call', { items: size }, measurement, { baselineName: BASELINE_NAME }))
      notes.push(
        `${size.toLocaleString('en-US')} items (${preloaded.length.toLocaleString('en-US')} Mastra messages): ` +
          `${significant(measurement.strata)} ms per call with StrataMemory vs ${significant(measurement.baseline!)} ms ` +
          `with Mastra's memory, ratio ${significant(measurement.ratio!)}; the model was sent ${strataSent.at(-1)} ` +
          `messages by Strata (the thread's ${thread.level} context) and ` +
          `${mastraSent.at(-1)} by Mastra's memory after the token limiter.`,
      )
      progress(`mastra: ${size.toLocaleString('en-US')} items measured`)
    }
    const recall = await recallRows(progress)
    rows.push(...recall.rows)
    notes.push(...recall.notes)
    return { rows, notes }
  },
}

export default benchmark
