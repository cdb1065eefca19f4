import { type MastraDBMessage, MessageList } from '@mastra/core/agent/message-list'
import { type ConversationMessage, fromPromptMessage, type MastraPrompt } from '../messages/prompt-messages'

/**
 * The messages a run was given as Mastra's `context` (`agent.generate(messages, { context })`; a
 * supervisor passes its conversation to a sub-agent so): shown to the model before the request, never
 * stored, as Mastra's own memory treats them. Their ids are the run's `context` source.
 */
export interface RunContext {
  ids: ReadonlySet<string>
  /** The messages as the prompt holds them. */
  prompt: ConversationMessage[]
}

const NO_CONTEXT: RunContext = { ids: new Set(), prompt: [] }

/** The run's context messages, from its message list (none without one). */
export async function runContextOf(messageList: MessageList | undefined): Promise<RunContext> {
  if (messageList === undefined) return NO_CONTEXT
  const ids = messageList.makeMessageSourceChecker().context
  if (ids.size === 0) return NO_CONTEXT
  const messages = messageList.get.all.db().filter((message: MastraDBMessage) => ids.has(message.id))
  const prompt = await new MessageList().add(messages, 'context').get.all.aiV5.llmPrompt()
  return { ids, prompt: prompt.filter((message) => message.role !== 'system') as ConversationMessage[] }
}

/** A message as Strata would store it: what two prompt messages are compared by. */
const storedForm = (message: MastraPrompt[number]) =>
  message.role === 'system' ? undefined : JSON.stringify(fromPromptMessage(message as ConversationMessage))

/**
 * The run's conversation without its context messages: each is taken out where it stands, in order
 * (they come before the request).
 */
export function withoutContext<M extends MastraPrompt[number]>(
  conversation: readonly M[],
  context: RunContext,
): M[] {
  if (context.prompt.length === 0) return conversation as M[]
  const wanted = context.prompt.map(storedForm)
  const kept: M[] = []
  let next = 0
  for (const message of conversation) {
    if (next < wanted.length && storedForm(message) === wanted[next]) next++
    else kept.push(message)
  }
  return kept
}

/** The prompt with the run's context messages before its request (the last user message). */
export function withContext(prompt: MastraPrompt, context: RunContext): MastraPrompt {
  if (context.prompt.length === 0) return prompt
  let request = prompt.length
  for (let index = prompt.length - 1; index >= 0; index--) {
    if (prompt[index]!.role === 'user') {
      request = index
      break
    }
  }
  return [...prompt.slice(0, request), ...context.prompt, ...prompt.slice(request)]
}

/** The context messages as text, for the budget: sent beside the thread's context. */
export const contextText = (context: RunContext) =>
  context.prompt.map((message) => JSON.stringify(message.content)).join('\n')
