import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { createMemory } from '@strata-memory/core'
import { lastAssistantMessageIsCompleteWithApprovalResponses, tool } from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { sendLastMessage } from '../client/send-last-message'
import { strataErrorFromResponse } from '../client/strata-error-from-response'
import { seenParts, TestChat } from '../testing/chat-client'
import { streamParts, toolCall } from '../testing/model-results'
import { strataChatRoute } from '../testing/strata-chat-route'
import { loadUIMessages } from '../ui/load-ui-messages'
import type { StrataUIMessage } from '../ui/memory-ui-parts'

const removed: string[] = []
const tools = {
  remove_file: tool({
    description: 'Removes a file',
    inputSchema: z.object({ path: z.string() }),
    needsApproval: true,
    execute: async ({ path }) => {
      removed.push(path)
      return { removed: path }
    },
  }),
}

/** Asks to remove a file on "remove X"; after the result, says whether it was removed. */
function approvalModel() {
  let calls = 0
  return new MockLanguageModelV4({
    doStream: async ({ prompt }: { prompt: LanguageModelV4Prompt }) => {
      calls++
      const last = prompt.at(-1)
      let parts: LanguageModelV4StreamPart[]
      const text =
        last?.role === 'user' ? last.content.map((p) => (p.type === 'text' ? p.text : '')).join('') : ''
      const asked = /remove (\S+)/.exec(text)
      if (asked) parts = streamParts([toolCall(`call-${calls}`, 'remove_file', { path: asked[1] })])
      else if (last?.role === 'tool') {
        const result = last.content.find((part) => part.type === 'tool-result')
        parts = streamParts(result?.output.type === 'execution-denied' ? 'Kept it.' : 'Removed it.')
      } else parts = streamParts('Hello.')
      return { stream: convertArrayToReadableStream(parts) }
    },
  })
}

const seen = seenParts

function setup(id: string) {
  const memory = createMemory()
  const model = approvalModel()
  const errors: unknown[] = []
  const route = strataChatRoute({ memory, model, tools, errors })
  const chat = new TestChat<StrataUIMessage<typeof tools>>(route, {
    id,
    prepareSendMessagesRequest: sendLastMessage,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  })
  return { memory, model, errors, chat }
}

/** The tool part of the chat's last answer. */
const toolPart = (chat: TestChat<StrataUIMessage<typeof tools>>) =>
  chat.messages.at(-1)!.parts.find((part) => part.type === 'tool-remove_file') as
    | { state: string; approval?: { id: string; approved?: boolean }; toolCallId: string }
    | undefined

/** Waits until the chat's automatic send (after the approval) has ended. */
async function settled(chat: TestChat<StrataUIMessage<typeof tools>>) {
  for (let tries = 0; tries < 200 && chat.status !== 'ready' && chat.status !== 'error'; tries++)
    await new Promise((resolve) => setTimeout(resolve, 10))
}

describe('tool approvals in the persistence route (needsApproval)', () => {
  it('an approved call runs once; the thread stores the call once with its result, and a reload shows the answer as streamed', async () => {
    const { memory, errors, chat } = setup('approve')
    await chat.sendMessage({ text: 'remove notes.txt' })
    expect(chat.error).toBeUndefined()
    const asked = toolPart(chat)!
    expect(asked.state).toBe('approval-requested')
    expect(removed).not.toContain('notes.txt')
    await chat.addToolApprovalResponse({ id: asked.approval!.id, approved: true })
    await settled(chat)
    expect(chat.error).toBeUndefined()
    expect(errors).toEqual([])
    expect(removed.filter((path) => path === 'notes.txt')).toHaveLength(1)
    expect(toolPart(chat)).toMatchObject({ state: 'output-available', approval: { approved: true } })
    // One answer message, continued under its id.
    expect(chat.messages.map((message) => message.role)).toEqual(['user', 'assistant'])
    const items = await (await memory.thread('approve')).items()
    const calls = items.flatMap((item) =>
      item.type === 'message' ? item.content.filter((part) => part.type === 'tool-call') : [],
    )
    const results = items.flatMap((item) =>
      item.type === 'message' ? item.content.filter((part) => part.type === 'tool-result') : [],
    )
    expect(calls).toHaveLength(1)
    expect(results).toHaveLength(1)
    expect(results[0]).toMatchObject({ toolCallId: asked.toolCallId, output: { removed: 'notes.txt' } })
    expect(seen(await loadUIMessages(memory, 'approve', { tools }))).toEqual(seen(chat.messages))
    // The same approval sent again (a stale tab): a 409, the tool does not run twice, nothing stored.
    const before = await (await memory.thread('approve')).items()
    const answer = structuredClone(chat.messages.at(-1)!)
    const part = answer.parts.find((each) => each.type === 'tool-remove_file') as Record<string, unknown>
    Object.assign(part, { state: 'approval-responded', output: undefined })
    const again = await strataChatRoute({ memory, model: approvalModel(), tools })(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        body: JSON.stringify({ id: 'approve', trigger: 'submit-message', message: answer }),
      }),
    )
    expect(again.status).toBe(409)
    expect((await strataErrorFromResponse(again)).code).toBe('STRATA_SEQ_CONFLICT')
    expect(removed.filter((path) => path === 'notes.txt')).toHaveLength(1)
    expect(await (await memory.thread('approve')).items()).toEqual(before)
  })

  it('a call awaiting approval loads as approval-requested after a reload, and approving it there runs it once', async () => {
    const memory = createMemory()
    const route = strataChatRoute({ memory, model: approvalModel(), tools })
    const asking = new TestChat<StrataUIMessage<typeof tools>>(route, {
      id: 'reload-approval',
      prepareSendMessagesRequest: sendLastMessage,
    })
    await asking.sendMessage({ text: 'remove draft.txt' })
    expect(toolPart(asking)?.state).toBe('approval-requested')
    // The page reloads: the chat comes from the thread, the call still awaiting approval.
    const loaded = await loadUIMessages<typeof tools>(memory, 'reload-approval', { tools })
    const pending = loaded.at(-1)!.parts.find((part) => part.type === 'tool-remove_file') as {
      state: string
      approval?: { id: string }
    }
    expect(pending.state).toBe('approval-requested')
    // Without the tools, nothing says the call awaits approval.
    const plain = await loadUIMessages(memory, 'reload-approval')
    expect(plain.at(-1)!.parts.find((part) => part.type === 'tool-remove_file')).toMatchObject({
      state: 'input-available',
    })
    const reloaded = new TestChat<StrataUIMessage<typeof tools>>(route, {
      id: 'reload-approval',
      messages: loaded,
      prepareSendMessagesRequest: sendLastMessage,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    })
    await reloaded.addToolApprovalResponse({ id: pending.approval!.id, approved: true })
    await settled(reloaded)
    expect(reloaded.error).toBeUndefined()
    expect(removed.filter((path) => path === 'draft.txt')).toHaveLength(1)
    expect(toolPart(reloaded)).toMatchObject({ state: 'output-available', approval: { approved: true } })
    expect(seen(await loadUIMessages(memory, 'reload-approval', { tools }))).toEqual(seen(reloaded.messages))
  })

  it('a denied call never runs; the thread stores its denial as the outcome, and a reload shows it denied', async () => {
    const { memory, errors, chat } = setup('deny')
    await chat.sendMessage({ text: 'remove keep.txt' })
    const asked = toolPart(chat)!
    await chat.addToolApprovalResponse({ id: asked.approval!.id, approved: false, reason: 'Keep it' })
    await settled(chat)
    expect(chat.error).toBeUndefined()
    expect(errors).toEqual([])
    expect(removed).not.toContain('keep.txt')
    expect(toolPart(chat)).toMatchObject({ state: 'output-denied', approval: { approved: false } })
    expect((chat.messages.at(-1)!.parts.at(-1) as { text?: string }).text).toBe('Kept it.')
    const items = await (await memory.thread('deny')).items()
    const results = items.flatMap((item) =>
      item.type === 'message' ? item.content.filter((part) => part.type === 'tool-result') : [],
    )
    expect(results).toHaveLength(1)
    expect(seen(await loadUIMessages(memory, 'deny', { tools }))).toEqual(seen(chat.messages))
  })
})
