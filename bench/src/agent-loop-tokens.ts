import type { TokenCounter } from '@strata-memory/core'

/** Tokens a chat format adds around each message (role and delimiters), as OpenAI's format does. */
export const MESSAGE_OVERHEAD = 4

/**
 * A message as either side renders it: an AI SDK `ModelMessage` (tool outputs typed as
 * `{ type: 'text' | 'json', value }`) or a Strata context message (tool outputs as plain JSON).
 */
export interface AnyMessage {
  role: string
  content: string | readonly object[]
}

const TYPED_OUTPUTS = new Set(['text', 'json', 'error-text', 'error-json'])

/** The text a tool output puts in front of the model: a typed output's value, else its JSON. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output
  const typed = output as { type?: unknown; value?: unknown } | null
  if (
    typed !== null &&
    typeof typed === 'object' &&
    TYPED_OUTPUTS.has(String(typed.type)) &&
    'value' in typed
  )
    return typeof typed.value === 'string' ? typed.value : JSON.stringify(typed.value)
  return JSON.stringify(output)
}

/** Each piece of text of a message the model reads: text, tool names, inputs and outputs. */
export function messageTexts(message: AnyMessage): string[] {
  if (typeof message.content === 'string') return [message.content]
  return message.content.flatMap((value) => {
    const part = value as Record<string, unknown>
    switch (part.type) {
      case 'text':
      case 'reasoning':
        return [String(part.text)]
      case 'tool-call':
        return [String(part.toolName), JSON.stringify(part.input)]
      case 'tool-result':
        return [String(part.toolName), outputText(part.output)]
      default:
        return [JSON.stringify(part)]
    }
  })
}

/** A message's tokens by `counter` (the exact tokenizer in the bench): its texts plus the overhead. */
export function messageTokens(message: AnyMessage, counter: TokenCounter): number {
  return messageTexts(message).reduce((sum, text) => sum + counter.count(text), MESSAGE_OVERHEAD)
}

/** The tokens of a whole context. */
export function contextTokens(messages: readonly AnyMessage[], counter: TokenCounter): number {
  return messages.reduce((sum, message) => sum + messageTokens(message, counter), 0)
}

/** True when a context holds `value` verbatim in some text the model reads. */
export function containsVerbatim(messages: readonly AnyMessage[], value: string): boolean {
  return messages.some((message) => messageTexts(message).some((text) => text.includes(value)))
}

/**
 * Drops the oldest messages until the context fits `budget` tokens: a leading system message stays,
 * an assistant message goes with the tool results that follow it (a call never loses its result,
 * nor a result its call), and the newest message group (the last assistant message and its results,
 * or the last message) is never dropped, so the result may still be over budget when that group alone is.
 *
 * @example
 * dropOldestToBudget(pruned, { budget: 8_000, count: (message) => messageTokens(message, exact) })
 */
export function dropOldestToBudget<M extends AnyMessage>(
  messages: readonly M[],
  { budget, count }: { budget: number; count: (message: M) => number },
): M[] {
  const head = messages[0]?.role === 'system' ? [messages[0]] : []
  // Groups: a message and the tool messages right after it; a leading tool message stands alone.
  const groups: M[][] = []
  for (const message of messages.slice(head.length)) {
    const last = groups.at(-1)
    if (message.role === 'tool' && last !== undefined) last.push(message)
    else groups.push([message])
  }
  const tokens = (group: readonly M[]) => group.reduce((sum, message) => sum + count(message), 0)
  let total = tokens(head) + groups.reduce((sum, group) => sum + tokens(group), 0)
  let first = 0
  while (total > budget && first < groups.length - 1) total -= tokens(groups[first++]!)
  return [...head, ...groups.slice(first).flat()]
}
