import { AIMessage, type BaseMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { tool } from '@langchain/core/tools'
import type { MessageItem, Thread } from '@strata-memory/core'
import { z } from 'zod'

/** A weather tool whose answer names the city, for tool loops. */
export const weather = tool(async ({ city }: { city: string }) => ({ city, forecast: `Sunny in ${city}` }), {
  name: 'weather',
  description: 'The forecast for a city.',
  schema: z.object({ city: z.string() }),
})

/** A scripted model: each entry is an answer (text) or tool calls. */
export function scriptedModel(
  script: readonly (
    | string
    | { calls: { name: string; args: Record<string, unknown>; id: string }[] }
    | AIMessage
  )[],
) {
  const model = fakeModel()
  for (const step of script) {
    if (typeof step === 'string') model.respond(new AIMessage(step))
    else if (step instanceof AIMessage) model.respond(step)
    else
      model.respond(
        new AIMessage({
          content: '',
          tool_calls: step.calls.map((call) => ({ ...call, type: 'tool_call' })),
        }),
      )
  }
  return model
}

/** What each message is, briefly: `type:text` and tool calls / results by id. */
export function brief(message: BaseMessage): string {
  const calls = (message as AIMessage).tool_calls ?? []
  const callText = calls.map((call) => ` →${call.name}#${call.id}`).join('')
  const toolId = (message as { tool_call_id?: string }).tool_call_id
  return `${message.type}:${message.text}${callText}${toolId === undefined ? '' : `#${toolId}`}`
}

/** The thread's stored messages, briefly, as `role:text` with tool call and result ids. */
export async function storedMessages(thread: Thread): Promise<string[]> {
  const items = (await thread.items()).filter((item) => item.type === 'message') as MessageItem[]
  return items.map((item) => {
    const parts = item.content.map((part) => {
      if (part.type === 'text') return part.text
      if (part.type === 'tool-call') return ` →${part.toolName}#${part.toolCallId}`
      if (part.type === 'tool-result') return `#${part.toolCallId}`
      return `[${part.type}]`
    })
    return `${item.role}:${parts.join('')}`
  })
}
