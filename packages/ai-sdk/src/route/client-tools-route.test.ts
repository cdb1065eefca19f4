import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { createMemory } from '@strata-memory/core'
import { lastAssistantMessageIsCompleteWithToolCalls, tool } from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { sendLastMessage } from '../client/send-last-message'
import { seenParts, TestChat } from '../testing/chat-client'
import { promptText, streamParts, toolCall } from '../testing/model-results'
import { strataChatRoute } from '../testing/strata-chat-route'
import { loadUIMessages } from '../ui/load-ui-messages'
import type { StrataUIMessage } from '../ui/memory-ui-parts'

/** A client-side tool (no `execute`): the page runs it and adds its output (`addToolOutput`). */
const tools = {
  getLocation: tool({
    description: "The user's location, read on the page",
    inputSchema: z.object({}),
    outputSchema: z.object({ city: z.string() }),
  }),
}

/** Asks for the location on "where am I?"; after the tool's output, answers with it. */
function locationModel() {
  let calls = 0
  const prompts: LanguageModelV4Prompt[] = []
  const model = new MockLanguageModelV4({
    doStream: async ({ prompt }: { prompt: LanguageModelV4Prompt }) => {
      calls++
      prompts.push(prompt)
      const last = prompt.at(-1)!
      let parts: LanguageModelV4StreamPart[]
      if (last.role === 'user' && promptText(last).includes('where am I')) {
        parts = streamParts([
          { type: 'text', text: 'Let me check.' },
          toolCall(`loc-${calls}`, 'getLocation', {}),
        ])
      } else if (last.role === 'tool') {
        const result = last.content.find((part) => part.type === 'tool-result')
        const output = result?.output
        parts = streamParts(
          output?.type === 'json'
            ? `You are in ${(output.value as { city: string }).city}.`
            : 'I could not tell.',
        )
      } else parts = streamParts(`Answer to: ${promptText(last)}`)
      return { stream: convertArrayToReadableStream(parts) }
    },
  })
  return { model, prompts }
}

function setup(id: string) {
  const memory = createMemory()
  const { model, prompts } = locationModel()
  const errors: unknown[] = []
  const route = strataChatRoute({ memory, model, tools, errors })
  const chat = new TestChat<StrataUIMessage<typeof tools>>(route, {
    id,
    prepareSendMessagesRequest: sendLastMessage,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
  })
  return { memory, route, prompts, errors, chat }
}

async function settled(chat: TestChat<StrataUIMessage<typeof tools>>) {
  for (let tries = 0; tries < 200 && chat.status !== 'ready' && chat.status !== 'error'; tries++)
    await new Promise((resolve) => setTimeout(resolve, 10))
}

/** The page runs the tool: it adds the tool's output, and the chat sends the answer back by itself. */
async function runOnPage(chat: TestChat<StrataUIMessage<typeof tools>>, toolCallId: string, city: string) {
  await chat.addToolOutput({ tool: 'getLocation', toolCallId, output: { city } })
  await settled(chat)
}

const toolPart = (chat: TestChat<StrataUIMessage<typeof tools>>) =>
  chat.messages.at(-1)!.parts.find((part) => part.type === 'tool-getLocation') as
    | { state: string; toolCallId: string; output?: unknown }
    | undefined

describe('client-side tools in the persistence route (addToolOutput)', () => {
  it("the page's tool output reaches the model once, the answer goes on under its id, and a reload shows it", async () => {
    const { memory, prompts, errors, chat } = setup('client-tool')
    await chat.sendMessage({ text: 'where am I?' })
    expect(chat.error).toBeUndefined()
    const asked = toolPart(chat)!
    expect(asked.state).toBe('input-available')
    await runOnPage(chat, asked.toolCallId, 'Lisbon')
    expect(chat.error).toBeUndefined()
    expect(errors).toEqual([])
    expect(chat.messages.map((message) => message.role)).toEqual(['user', 'assistant'])
    expect(toolPart(chat)).toMatchObject({ state: 'output-available', output: { city: 'Lisbon' } })
    expect(chat.messages.at(-1)!.parts.findLast((part) => part.type === 'text')).toMatchObject({
      text: 'You are in Lisbon.',
    })
    // The model saw the call and its output once, the output last.
    const sent = prompts.at(-1)!
    expect(sent.at(-1)).toMatchObject({ role: 'tool', content: [{ toolCallId: asked.toolCallId }] })
    const calls = sent.flatMap((message) =>
      message.role === 'assistant' ? message.content.filter((part) => part.type === 'tool-call') : [],
    )
    expect(calls).toHaveLength(1)
    expect(seenParts(await loadUIMessages(memory, 'client-tool', { tools }))).toEqual(
      seenParts(chat.messages),
    )
    // The next question sees the call paired with its output.
    await chat.sendMessage({ text: 'thanks' })
    expect(chat.error).toBeUndefined()
    const next = prompts.at(-1)!
    expect(next.filter((message) => message.role === 'tool')).toHaveLength(1)
    expect(seenParts(await loadUIMessages(memory, 'client-tool', { tools }))).toEqual(
      seenParts(chat.messages),
    )
  })

  it('after a reload, the pending call can still be answered; a stale copy of the output is a 409 and stores nothing', async () => {
    const { memory, route, chat } = setup('client-tool-reload')
    await chat.sendMessage({ text: 'where am I?' })
    const reloaded = new TestChat<StrataUIMessage<typeof tools>>(route, {
      id: 'client-tool-reload',
      messages: await loadUIMessages(memory, 'client-tool-reload', { tools }),
      prepareSendMessagesRequest: sendLastMessage,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    })
    const pending = toolPart(reloaded)!
    expect(pending.state).toBe('input-available')
    await runOnPage(reloaded, pending.toolCallId, 'Porto')
    expect(reloaded.error).toBeUndefined()
    expect(toolPart(reloaded)).toMatchObject({ state: 'output-available', output: { city: 'Porto' } })
    expect(seenParts(await loadUIMessages(memory, 'client-tool-reload', { tools }))).toEqual(
      seenParts(reloaded.messages),
    )
    // The first tab, behind, sends its own output for the same call: refused, nothing stored.
    const before = await (await memory.thread('client-tool-reload')).items()
    await runOnPage(chat, pending.toolCallId, 'Faro')
    expect(chat.error?.message).toMatch(/reload/i)
    expect(await (await memory.thread('client-tool-reload')).items()).toEqual(before)
  })

  it('an answer cut after its tool results (a step limit) and sent back by the page goes on, under its id', async () => {
    const memory = createMemory()
    const lookup = tool({
      description: 'Looks a topic up',
      inputSchema: z.object({ topic: z.string() }),
      execute: async ({ topic }) => ({ topic, found: true }),
    })
    let calls = 0
    const model = new MockLanguageModelV4({
      doStream: async ({ prompt }: { prompt: LanguageModelV4Prompt }) => {
        calls++
        const last = prompt.at(-1)!
        const parts =
          last.role === 'tool'
            ? streamParts('Found it.')
            : streamParts([toolCall(`look-${calls}`, 'lookup', { topic: 'owls' })])
        return { stream: convertArrayToReadableStream(parts) }
      },
    })
    const route = strataChatRoute({ memory, model, tools: { lookup }, steps: 1 })
    const chat = new TestChat<StrataUIMessage>(route, {
      id: 'cut-loop',
      prepareSendMessagesRequest: sendLastMessage,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    })
    await chat.sendMessage({ text: 'look up owls' })
    await settled(chat as never)
    expect(chat.error).toBeUndefined()
    expect(chat.messages.map((message) => message.role)).toEqual(['user', 'assistant'])
    expect(chat.messages.at(-1)!.parts.findLast((part) => part.type === 'text')).toMatchObject({
      text: 'Found it.',
    })
    expect(seenParts(await loadUIMessages(memory, 'cut-loop'))).toEqual(seenParts(chat.messages))
  })
})
