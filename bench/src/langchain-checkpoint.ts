import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { tool } from '@langchain/core/tools'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory } from '@strata-memory/core'
import { strataMiddleware } from '@strata-memory/langchain'
import { createAgent } from 'langchain'
import { z } from 'zod'

/** Turns of the checkpoint scenario, and the size of each turn's tool result. */
export const CHECKPOINT_TURNS = 30
export const RESULT_BYTES = 20_000
/** The memory's input budget in the scenario (tokens). */
const CHECKPOINT_BUDGET = 12_000

/** A tool whose every answer is a distinct page of {@link RESULT_BYTES} characters. */
const readPage = tool(
  async ({ page }: { page: number }) =>
    `Page ${page}. ${Array.from({ length: 2_500 }, (_, line) => `p${page}l${line} `).join('')}`.slice(
      0,
      RESULT_BYTES,
    ),
  { name: 'read_page', description: 'Reads one page.', schema: z.object({ page: z.number() }) },
)

/**
 * The bytes of the newest checkpoint, as LangGraph's `MemorySaver` serialises it, after each of
 * {@link CHECKPOINT_TURNS} turns of a real `createAgent` with `strataMiddleware({ state })`: each turn
 * the user asks, the model (`fakeModel`) reads a 20 KB page with a tool, then answers. Same memory
 * options (an input budget of 12k tokens, the content channel's defaults) for both states.
 */
export async function checkpointBytesPerTurn(state: 'full' | 'compact'): Promise<number[]> {
  const memory = createMemory({ compaction: { budget: { inputTokens: CHECKPOINT_BUDGET } } })
  const model = fakeModel()
  for (let turn = 1; turn <= CHECKPOINT_TURNS; turn++) {
    model.respond(
      new AIMessage({
        content: '',
        tool_calls: [{ name: 'read_page', args: { page: turn }, id: `read-${turn}`, type: 'tool_call' }],
      }),
    )
    model.respond(new AIMessage(`Page ${turn} is about line ${turn}.`))
  }
  const saver = new MemorySaver()
  const agent = createAgent({
    model,
    tools: [readPage],
    checkpointer: saver,
    middleware: [strataMiddleware({ memory, state })],
  })
  const config = { configurable: { thread_id: `bench.checkpoint.${state}` } }
  const sizes: number[] = []
  for (let turn = 1; turn <= CHECKPOINT_TURNS; turn++) {
    await agent.invoke({ messages: [new HumanMessage(`Read page ${turn}.`)] }, config)
    const tuple = await saver.getTuple(config)
    if (tuple === undefined) throw new Error(`no checkpoint after turn ${turn}`)
    const [, bytes] = await saver.serde.dumpsTyped(tuple.checkpoint)
    sizes.push(bytes.byteLength)
  }
  await memory.close()
  return sizes
}
