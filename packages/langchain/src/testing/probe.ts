import type { AIMessage, BaseMessage } from '@langchain/core/messages'
import type { Memory } from '@strata-memory/core'
import { createMiddleware } from 'langchain'
import { toLangChainMessages } from '../messages/to-langchain'

/** A message as a provider receives it: type, text, tool calls with their arguments, the result's call id. */
export function wire(message: BaseMessage): string {
  const calls = ((message as AIMessage).tool_calls ?? []).map(
    (call) => ` →${call.name}#${call.id}${JSON.stringify(call.args)}`,
  )
  const toolId = (message as { tool_call_id?: string }).tool_call_id
  return `${message.type}:${message.text}${calls.join('')}${toolId === undefined ? '' : `#${toolId}`}`
}

/** What one model call was sent (below Strata) and what the thread's context was at that moment. */
export interface ProbedCall {
  sent: string[]
  context: string[]
}

/**
 * A middleware listed right after `strataMiddleware` (so it runs inside it): each model call records
 * the messages Strata passed on and the thread's context at that moment, as {@link wire} strings.
 */
export function contextProbe(memory: Memory, threadId: string) {
  const calls: ProbedCall[] = []
  const middleware = createMiddleware({
    name: 'ContextProbe',
    wrapModelCall: async (request, handler) => {
      const context = await (await memory.thread(threadId)).context()
      calls.push({
        sent: request.messages.filter((message) => message.type !== 'system').map(wire),
        context: toLangChainMessages(context.messages.filter((message) => message.role !== 'system')).map(
          wire,
        ),
      })
      return handler(request)
    },
  })
  return { middleware, calls }
}
