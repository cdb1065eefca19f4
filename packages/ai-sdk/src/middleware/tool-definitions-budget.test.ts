import { type ContextStats, createMemory, tokenEstimator } from '@strata-memory/core'
import { generateText, isStepCount, type ModelMessage, streamText, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { generated, streamed, toolCall } from '../testing/model-results'
import { toolDefinitionsText } from './sent-alongside'
import { strataMiddleware } from './strata-middleware'

const BUDGET = 1_600
const counter = tokenEstimator()

/** Three tools with the descriptions and schemas a real agent gives its model. */
const tools = {
  fetch_invoice: tool({
    description: `Fetches an invoice by its number. ${'Returns the vendor, the lines with unit prices, the totals, the tax breakdown and the payment terms. '.repeat(6)}`,
    inputSchema: z.object({
      invoiceNumber: z.string().describe('The invoice number, as printed on the invoice (PO-7001).'),
      includeLines: z.boolean().describe('Whether to return the invoice lines, not only the totals.'),
    }),
    execute: async ({ invoiceNumber }) => ({ invoiceNumber, total: 1_250 }),
  }),
  search_vendors: tool({
    description: `Searches the vendor register. ${'Matches names, tax ids, addresses and the categories the vendor is approved for. '.repeat(6)}`,
    inputSchema: z.object({
      query: z.string().describe('Words to look for in the vendor register.'),
      category: z.enum(['hardware', 'software', 'services', 'travel']).optional(),
      limit: z.number().int().min(1).max(50).describe('How many vendors to return at most.'),
    }),
    execute: async () => [{ vendor: 'Acme' }],
  }),
  approve_payment: tool({
    description: `Approves a payment. ${'Only for invoices already checked against their purchase order and the delivery note. '.repeat(6)}`,
    inputSchema: z.object({
      invoiceNumber: z.string(),
      amount: z.number().describe('The amount to pay, in the invoice currency.'),
      note: z.string().describe('Why the payment is approved, for the audit trail.'),
    }),
    execute: async () => 'approved',
  }),
}

/** A conversation of 8 earlier exchanges (about 1 000 tokens) and the new request. */
function conversation(): ModelMessage[] {
  const messages: ModelMessage[] = []
  for (let turn = 1; turn <= 8; turn++) {
    messages.push({
      role: 'user',
      content: `Question ${turn} about vendor ${turn}: ${'delivery dates, warranty, unit prices. '.repeat(10)}`,
    })
    messages.push({
      role: 'assistant',
      content: `Answer ${turn}: ${'checked against the register. '.repeat(6)}`,
    })
  }
  messages.push({ role: 'user', content: 'Fetch invoice PO-7001 and tell me its total.' })
  return messages
}

/** A memory under the budget, the contexts it builds, and the wrapped model. */
function setup(mock: MockLanguageModelV4, threadId: string) {
  const memory = createMemory({ compaction: { budget: { inputTokens: BUDGET } } })
  const contexts: ContextStats[] = []
  memory.on('context', ({ stats }) => contexts.push(stats))
  const model = wrapLanguageModel({ model: mock, middleware: strataMiddleware({ memory, threadId }) })
  return { memory, contexts, model }
}

describe('tool definitions count against the budget', () => {
  it('the first call, before any usage report, fits the context to what the tool definitions leave (generateText)', async () => {
    // Without tools: the whole conversation fits.
    const plain = new MockLanguageModelV4({ doGenerate: async () => generated('Done.', { inputTokens: 0 }) })
    const without = setup(plain, 'without-tools')
    await generateText({ model: without.model, messages: conversation() })
    const whole = without.contexts[0]!
    expect(whole.omittedItems).toBe(0)

    // With tools: a tool step, then the answer; the same conversation no longer fits beside them.
    const script = [
      generated([toolCall('call-1', 'fetch_invoice', { invoiceNumber: 'PO-7001', includeLines: false })], {
        inputTokens: 0,
      }),
      generated('The total of PO-7001 is 1 250.', { inputTokens: 0 }),
    ]
    const mock = new MockLanguageModelV4({ doGenerate: async () => script.shift()! })
    const withTools = setup(mock, 'with-tools')
    await generateText({ model: withTools.model, messages: conversation(), tools, stopWhen: isStepCount(3) })

    const definitions = toolDefinitionsText(mock.doGenerateCalls[0]!.tools)
    const toolTokens = counter.count(definitions)
    // With the default estimator, the conversation and the definitions each fit the 1 600-token budget
    // alone, but not together. The first step sends a context with earlier messages left out, which
    // fills the budget beside the definitions; after it the budget compaction summarizes.
    expect(toolTokens).toBeGreaterThan(BUDGET - whole.contextTokens)
    expect(whole.contextTokens).toBeLessThan(BUDGET)
    expect(mock.doGenerateCalls).toHaveLength(2)
    for (const [index, stats] of withTools.contexts.entries()) {
      expect(stats.contextTokens + toolTokens).toBeLessThanOrEqual(stats.inputBudget!)
      expect(stats.contextTokens).toBeLessThan(whole.contextTokens)
      // The provider received the tools and a smaller prompt than the one without them.
      expect(mock.doGenerateCalls[index]!.tools?.map((definition) => definition.name)).toEqual(
        Object.keys(tools),
      )
      expect(mock.doGenerateCalls[index]!.prompt.length).toBeLessThan(plain.doGenerateCalls[0]!.prompt.length)
    }
    // Before any usage report, the fit left out what the definitions needed room for.
    expect(withTools.contexts[0]!.omittedItems).toBeGreaterThan(0)
    expect(withTools.contexts[0]!.contextTokens + toolTokens).toBeGreaterThan(0.85 * BUDGET)
    // The request is in view on both steps.
    expect(JSON.stringify(mock.doGenerateCalls[0]!.prompt)).toContain('Fetch invoice PO-7001')
    expect(JSON.stringify(mock.doGenerateCalls[1]!.prompt)).toContain('"total":1250')
  })

  it('a streamed call counts the tool definitions too (streamText)', async () => {
    const mock = new MockLanguageModelV4({ doStream: async () => streamed('Done.', { inputTokens: 0 }) })
    const { contexts, model } = setup(mock, 'streamed')
    const result = streamText({ model, messages: conversation(), tools })
    await result.consumeStream()
    const toolTokens = counter.count(toolDefinitionsText(mock.doStreamCalls[0]!.tools))
    expect(contexts).toHaveLength(1)
    expect(contexts[0]!.contextTokens + toolTokens).toBeLessThanOrEqual(contexts[0]!.inputBudget!)
    expect(contexts[0]!.omittedItems).toBeGreaterThan(0)
  })

  it("tool definitions are the provider's: name, description and JSON schema", async () => {
    const mock = new MockLanguageModelV4({ doGenerate: async () => generated('Done.') })
    const { model } = setup(mock, 'definitions')
    await generateText({ model, prompt: 'Hello', tools: { search_vendors: tools.search_vendors } })
    const [line] = toolDefinitionsText(mock.doGenerateCalls[0]!.tools).split('\n')
    const parsed = JSON.parse(line!)
    expect(parsed.name).toBe('search_vendors')
    expect(parsed.description).toContain('vendor register')
    expect(parsed.parameters.properties.category.enum).toEqual(['hardware', 'software', 'services', 'travel'])
  })
})
