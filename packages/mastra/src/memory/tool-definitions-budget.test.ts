import { Agent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import { createMemory, tokenEstimator } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { promptTokens } from '../testing/agent-harness'
import { scriptedModel } from '../testing/scripted-model'
import { StrataMemory } from './strata-memory'
import { toolDefinitionsText } from './tool-definitions'

const counter = tokenEstimator()
const BUDGET = 2_100
/**
 * The test recounts the prompt the model received message by message; the memory counts part by part
 * and counts the instructions with the definitions as one text sent alongside. The estimator is not
 * additive, so the two differ by a few tokens (ids are sequential here, so it is the same on
 * every run).
 */
const RECOUNT_SLACK = 4

/** Ids in order, so the omission note, which names them, costs the same on every run. */
function sequentialIds() {
  let next = 0
  return () => `item-${++next}`
}

/** A tool whose definition is large, as real tools' descriptions and schemas are. */
const ledger = createTool({
  id: 'ledger_lookup',
  description: `Looks up the ledger of an account. ${'Rows carry date, amount, currency, counterparty and memo. '.repeat(60)}`,
  inputSchema: z.object({ account: z.string().describe('The account number, as printed on the statement.') }),
  execute: async () => 'no rows',
})

/** A thread with a long history, then one generate: what the first model call was sent. */
async function firstCall(withTools: boolean, structured?: z.ZodObject) {
  const memory = createMemory({
    generateId: sequentialIds(),
    compaction: { budget: { inputTokens: BUDGET } },
  })
  const strata = new StrataMemory({ memory, tools: false })
  await strata.saveThread({
    thread: { id: 'books', resourceId: 'ana', createdAt: new Date(), updatedAt: new Date() },
  })
  const thread = await strata.thread('books')
  for (let turn = 1; turn <= 9; turn++) {
    await thread.append({
      role: 'user',
      content: `Invoice ${turn}: ${'amount, vendor, due date, terms. '.repeat(20)}`,
    })
    await thread.append({ role: 'assistant', content: `Filed invoice ${turn}.` })
  }
  const { model, prompts } = scriptedModel([{ text: structured === undefined ? 'Done.' : '{"due":[]}' }])
  const tools: Record<string, typeof ledger> = withTools ? { ledger_lookup: ledger } : {}
  let sentTools: unknown
  let sentFormat: unknown
  const generate = model.doGenerate.bind(model)
  model.doGenerate = async (options) => {
    sentTools = options.tools
    sentFormat = options.responseFormat
    return generate(options)
  }
  const agent = new Agent({
    id: 'books',
    name: 'books',
    instructions: 'You keep the books.',
    model,
    tools,
    memory: strata,
  })
  const on = { thread: 'books', resource: 'ana' }
  if (structured === undefined) await agent.generate('Which invoices are due?', { memory: on })
  else
    await agent.generate('Which invoices are due?', { memory: on, structuredOutput: { schema: structured } })
  return { messages: promptTokens(prompts[0]!), sentTools, sentFormat, last: prompts[0]!.at(-1) }
}

describe('the tool definitions a step sends count against the budget', () => {
  it('a budget that fits the history without tools but not with them gets a smaller context, within the budget', async () => {
    const withoutTools = await firstCall(false)
    const withTools = await firstCall(true)
    // What the provider received, counted as the processor counts it.
    const toolTokens = counter.count(JSON.stringify(withTools.sentTools))
    expect(toolTokens).toBeGreaterThan(600)
    expect(withoutTools.messages).toBeLessThanOrEqual(BUDGET)
    expect(withoutTools.messages + toolTokens).toBeGreaterThan(BUDGET)
    expect(withTools.messages).toBeLessThan(withoutTools.messages)
    expect(withTools.messages + toolTokens).toBeLessThanOrEqual(BUDGET + RECOUNT_SLACK)
    expect(JSON.stringify(withTools.last)).toContain('Which invoices are due?')
  })

  it('so does the output schema of a call with structuredOutput', async () => {
    const report = z
      .object({ due: z.array(z.string()).describe('The ids of the invoices due.') })
      .describe(`The invoices due. ${'Each row carries its id, vendor, amount and due date. '.repeat(60)}`)
    const without = await firstCall(false)
    const structured = await firstCall(false, report)
    // What the provider received, counted as the processor counts it.
    const formatTokens = counter.count(JSON.stringify(structured.sentFormat))
    expect(formatTokens).toBeGreaterThan(600)
    expect(without.messages + formatTokens).toBeGreaterThan(BUDGET)
    expect(structured.messages).toBeLessThan(without.messages)
    expect(structured.messages + formatTokens).toBeLessThanOrEqual(BUDGET + RECOUNT_SLACK)
  })

  it('the definitions are the provider’s: name, description and JSON schema; only the active tools', () => {
    const step = {
      ledger_lookup: {
        type: 'function',
        id: 'ledger_lookup',
        description: 'Looks up.',
        parameters: { jsonSchema: { type: 'object', properties: { account: { type: 'string' } } } },
      },
      weather: {
        type: 'function',
        id: 'weather',
        description: 'The weather.',
        parameters: { jsonSchema: {} },
      },
    }
    expect(JSON.parse(toolDefinitionsText(step, ['ledger_lookup']))).toEqual([
      {
        type: 'function',
        name: 'ledger_lookup',
        description: 'Looks up.',
        inputSchema: { type: 'object', properties: { account: { type: 'string' } } },
      },
    ])
    expect(toolDefinitionsText({})).toBe('')
    expect(toolDefinitionsText(undefined)).toBe('')
  })
})
