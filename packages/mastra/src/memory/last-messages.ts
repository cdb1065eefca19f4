import { invalidOptions } from '@strata-memory/core'
import type { MastraPrompt } from '../messages/prompt-messages'

/**
 * Mastra's `lastMessages` of the memory and of a call (the call's wins), checked: a whole number ≥ 0,
 * `false`, or undefined when neither gives it. Anything else is `STRATA_INVALID_OPTIONS`.
 */
export function resolveLastMessages(
  memoryLevel: unknown,
  callLevel: unknown,
  where: string,
): number | false | undefined {
  const value = callLevel !== undefined ? callLevel : memoryLevel
  if (value === undefined || value === false) return value
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    invalidOptions(
      `${where}: lastMessages must be a whole number of messages, or false (got ${JSON.stringify(value)}).`,
      {
        lastMessages: value,
      },
    )
  }
  return value
}

/**
 * The most history messages a run shows before its request, from `lastMessages` (see
 * {@link resolveLastMessages}): undefined for no cap when it is not given (Strata's context is fitted
 * to its token budget), 0 for `false`, which turns conversation history off as in Mastra (its
 * supervisor calls sub-agents with it): the request and its steps only.
 */
export function historyCap(memoryLevel: unknown, callLevel: unknown, where: string): number | undefined {
  const value = resolveLastMessages(memoryLevel, callLevel, where)
  return value === false ? 0 : value
}

/**
 * The context's conversation cut to the current request (the last user message) and its steps, plus
 * at most `cap` messages before it. A cut never separates a tool result from its call (it moves back
 * to the assistant message that made the call). The system messages (the instructions, Strata's memory
 * slots) stay; when messages were cut, one line says how many and that `memory_query` finds them.
 */
export function capMessages(prompt: MastraPrompt, cap: number | undefined): MastraPrompt {
  if (cap === undefined) return prompt
  const system = prompt.filter((message) => message.role === 'system')
  const conversation = prompt.filter((message) => message.role !== 'system')
  const start = capStart(conversation, cap)
  if (start === 0) return prompt
  const note = {
    role: 'system' as const,
    content: `[${start} earlier message${start === 1 ? ' is' : 's are'} not shown (lastMessages: ${cap}); memory_query finds ${start === 1 ? 'it' : 'them'}.]`,
  }
  return [...system, note, ...conversation.slice(start)]
}

/**
 * Where {@link capMessages} starts the conversation it keeps (the prompt's messages but its system
 * ones): `cap` messages before the request (the last user message), moved back past tool results to
 * the assistant message that made their calls.
 */
export function capStart(conversation: readonly { role: string }[], cap: number): number {
  let request = conversation.length
  for (let index = conversation.length - 1; index >= 0; index--) {
    if (conversation[index]!.role === 'user') {
      request = index
      break
    }
  }
  let start = Math.max(0, request - cap)
  while (start > 0 && conversation[start]!.role === 'tool') start--
  return start
}
