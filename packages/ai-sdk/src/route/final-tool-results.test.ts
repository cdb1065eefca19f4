import { createMemory } from '@strata-memory/core'
import { tool } from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { chatPage, seenParts } from '../testing/chat-client'
import { promptText, streamParts, toolCall } from '../testing/model-results'
import { strataChatRoute } from '../testing/strata-chat-route'
import { loadUIMessages } from '../ui/load-ui-messages'
import type { StrataUIMessage } from '../ui/memory-ui-parts'

/*
 * An answer that stops on a tool step (`stopWhen` reached after the tools ran) makes no further model
 * call, and the middleware stores a step's results from the next call's prompt: the route recipe's
 * `storeFinalToolResults` stores them, so a reload shows the call with its output and the next turn's
 * context has the result, stored once.
 */

const textOf = promptText

/** Asks for a lookup when the user says "look up X"; answers anything else. */
function lookupModel() {
  let calls = 0
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      calls++
      const last = prompt.at(-1)
      const topic = last?.role === 'user' ? /look up (\w+)/.exec(textOf(last))?.[1] : undefined
      const parts =
        topic !== undefined
          ? streamParts([toolCall(`call-${calls}`, 'lookup', { topic })])
          : streamParts(last?.role === 'tool' ? 'Here is what I found.' : `Answer to: ${textOf(last)}`)
      return { stream: convertArrayToReadableStream(parts) }
    },
  })
}

const tools = {
  lookup: tool({
    description: 'Looks a topic up.',
    inputSchema: z.object({ topic: z.string() }),
    execute: async ({ topic }) => ({ topic, rows: [`${topic} row 1`, `${topic} row 2`] }),
  }),
}

/** How many stored tool results answer each call. */
async function resultsPerCall(memory: ReturnType<typeof createMemory>, threadId: string) {
  const counts = new Map<string, number>()
  for (const item of await (await memory.thread(threadId)).items())
    if (item.type === 'message')
      for (const part of item.content)
        if (part.type === 'tool-result') counts.set(part.toolCallId, (counts.get(part.toolCallId) ?? 0) + 1)
  return counts
}

describe('an answer that stopped on a tool step', () => {
  it('keeps its tool results: a reload shows the output, the next turn sees it, stored once', async () => {
    const memory = createMemory()
    const model = lookupModel()
    const errors: unknown[] = []
    const route = strataChatRoute({ memory, model, tools, errors, steps: 1 })
    const chat = chatPage<StrataUIMessage>(route, 'stopped')
    await chat.sendMessage({ text: 'look up tides' })
    expect(errors).toEqual([])
    // One model call: the loop stopped after the tool ran.
    expect(model.doStreamCalls).toHaveLength(1)
    const loaded = await loadUIMessages(memory, 'stopped')
    const lookup = loaded[1]!.parts.find((part) => part.type === 'tool-lookup')
    expect(lookup).toMatchObject({ state: 'output-available', output: { topic: 'tides' } })
    expect(seenParts(loaded)).toEqual(seenParts(chat.messages))
    expect(await resultsPerCall(memory, 'stopped')).toEqual(new Map([['call-1', 1]]))

    await chat.sendMessage({ text: 'Thanks' })
    const prompt = model.doStreamCalls.at(-1)!.prompt
    const result = prompt.find((message) => message.role === 'tool')
    expect(JSON.stringify(result)).toContain('tides row 1')
    expect(await resultsPerCall(memory, 'stopped')).toEqual(new Map([['call-1', 1]]))
  })

  it('stores nothing twice when the loop went on to answer', async () => {
    const memory = createMemory()
    const route = strataChatRoute({ memory, model: lookupModel(), tools })
    const chat = chatPage<StrataUIMessage>(route, 'answered')
    await chat.sendMessage({ text: 'look up tides' })
    expect(await resultsPerCall(memory, 'answered')).toEqual(new Map([['call-1', 1]]))
    const loaded = await loadUIMessages(memory, 'answered')
    expect(seenParts(loaded)).toEqual(seenParts(chat.messages))
  })
})
