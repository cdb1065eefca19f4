import { HumanMessage } from '@langchain/core/messages'
import { tool } from '@langchain/core/tools'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory, type Memory, tokenEstimator } from '@strata-memory/core'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { scriptedModel } from '../testing/agent'
import { strataMiddleware } from './strata-middleware'
import { toolDefinitionsText } from './tool-definitions'

const counter = tokenEstimator()
/** A message's tokens as the memory counts one: its text and 4 tokens of message framing. */
const tokensOf = (text: string) => counter.count(text) + 4

/** A tool whose definition is large, as real tools' descriptions and schemas are. */
const ledger = tool(
  async ({ account }: { account: string; from?: string; to?: string }) => `Ledger of ${account}`,
  {
    name: 'ledger_lookup',
    description: `Looks up the ledger of an account. ${'Rows carry date, amount, currency, counterparty and memo. '.repeat(60)}`,
    schema: z.object({
      account: z.string().describe('The account number, as printed on the statement.'),
      from: z.string().optional().describe('The first day, ISO 8601.'),
      to: z.string().optional().describe('The last day, ISO 8601.'),
    }),
  },
)

const BUDGET = 2_100
/**
 * The test recounts what the model received message by message (`message.text`); the memory counts
 * part by part, and the estimator is not additive, so the two differ by a token or two (ids are
 * sequential here, so the difference is the same on every run).
 */
const RECOUNT_SLACK = 4

/** Ids in order, so the omission note, which names them, costs the same on every run. */
function sequentialIds() {
  let next = 0
  return () => `item-${++next}`
}

/** A thread with a long history, then one invoke: the tokens of what the first model call was sent. */
async function firstCall(memory: Memory, tools: (typeof ledger)[], responseFormat?: z.ZodType) {
  const thread = await memory.thread('tools-budget')
  for (let turn = 1; turn <= 9; turn++) {
    await thread.append({
      role: 'user',
      content: `Invoice ${turn}: ${'amount, vendor, due date, terms. '.repeat(20)}`,
    })
    await thread.append({ role: 'assistant', content: `Filed invoice ${turn}.` })
  }
  const model = scriptedModel(['Done.'])
  const agent = createAgent({
    model,
    tools,
    systemPrompt: 'You keep the books.',
    ...(responseFormat === undefined ? {} : { responseFormat: responseFormat as z.ZodObject }),
    checkpointer: new MemorySaver(),
    middleware: [strataMiddleware({ memory, history: 'new' })],
  })
  await agent.invoke(
    { messages: [new HumanMessage('Which invoices are due?')] },
    { configurable: { thread_id: 'tools-budget' } },
  )
  const call = model.calls[0]!
  const messages = call.messages.reduce((sum, message) => sum + tokensOf(message.text), 0)
  return {
    messages,
    tools: counter.count(toolDefinitionsText(tools, responseFormat)),
    texts: call.messages.map((m) => m.text),
  }
}

describe('the tool definitions a model call sends count against the budget', () => {
  it('a budget that fits the history without tools but not with them gets a smaller context, within the budget', async () => {
    const withoutTools = await firstCall(
      createMemory({ generateId: sequentialIds(), compaction: { budget: { inputTokens: BUDGET } } }),
      [],
    )
    const withTools = await firstCall(
      createMemory({ generateId: sequentialIds(), compaction: { budget: { inputTokens: BUDGET } } }),
      [ledger],
    )
    expect(withTools.tools).toBeGreaterThan(600)
    // Without tools the history fits as it is; the tools' definitions would push it over.
    expect(withoutTools.messages).toBeLessThanOrEqual(BUDGET)
    expect(withoutTools.messages + withTools.tools).toBeGreaterThan(BUDGET)
    // With them, the first call — before any usage report — was fitted: smaller, and within the budget
    // with its tool definitions.
    expect(withTools.messages).toBeLessThan(withoutTools.messages)
    expect(withTools.messages + withTools.tools).toBeLessThanOrEqual(BUDGET + RECOUNT_SLACK)
    expect(withTools.texts.at(-1)).toBe('Which invoices are due?')
  })

  it('so does the structured-output format the agent adds to the call (responseFormat)', async () => {
    const report = z
      .object({
        due: z.array(z.string()).describe('The ids of the invoices due, as printed on each invoice.'),
      })
      .describe(`The invoices due. ${'Each row carries its id, vendor, amount and due date. '.repeat(60)}`)
    const budget = () =>
      createMemory({ generateId: sequentialIds(), compaction: { budget: { inputTokens: BUDGET } } })
    const without = await firstCall(budget(), [])
    const withFormat = await firstCall(budget(), [], report)
    expect(withFormat.tools).toBeGreaterThan(600)
    expect(without.messages + withFormat.tools).toBeGreaterThan(BUDGET)
    expect(withFormat.messages).toBeLessThan(without.messages)
    expect(withFormat.messages + withFormat.tools).toBeLessThanOrEqual(BUDGET + RECOUNT_SLACK)
  })

  it('the definitions are the provider’s: name, description and JSON schema of each tool', () => {
    const text = toolDefinitionsText([ledger])
    expect(JSON.parse(text)).toEqual([
      {
        type: 'function',
        function: expect.objectContaining({
          name: 'ledger_lookup',
          description: ledger.description,
          parameters: expect.objectContaining({
            type: 'object',
            properties: expect.objectContaining({ account: expect.objectContaining({ type: 'string' }) }),
          }),
        }),
      },
    ])
    expect(toolDefinitionsText([])).toBe('')
    // A provider's built-in tool, given as a plain object, counts as it is sent.
    expect(JSON.parse(toolDefinitionsText([{ type: 'web_search_preview' }]))).toEqual([
      { type: 'web_search_preview' },
    ])
  })
})
