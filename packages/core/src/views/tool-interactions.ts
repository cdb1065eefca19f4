import type { Item, JsonValue } from '../items'

/** A tool call paired with its result (derived from the log, never stored). */
export interface ToolInteraction<L extends string = string> {
  toolCallId: string
  toolName: string
  input: JsonValue
  /** `pending` until a result arrives; `error` when the result has `isError`. */
  status: 'pending' | 'success' | 'error'
  output?: JsonValue
  turnId: string
  level: L
  callSeq: number
  resultSeq?: number
}

/**
 * Pairs every tool call in `items` with its result by `toolCallId`, in call order.
 * Results whose call is not among `items` are left out.
 */
export function toolInteractions<L extends string>(items: readonly Item<L>[]): ToolInteraction<L>[] {
  const byId = new Map<string, ToolInteraction<L>>()
  for (const item of items) {
    if (item.type !== 'message') continue
    for (const part of item.content) {
      if (part.type === 'tool-call' && !byId.has(part.toolCallId)) {
        byId.set(part.toolCallId, {
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: part.input,
          status: 'pending',
          turnId: item.turnId,
          level: item.level,
          callSeq: item.seq,
        })
      }
    }
    for (const part of item.content) {
      if (part.type !== 'tool-result') continue
      const interaction = byId.get(part.toolCallId)
      if (interaction === undefined || interaction.status !== 'pending') continue
      interaction.status = part.isError ? 'error' : 'success'
      interaction.output = part.output
      interaction.resultSeq = item.seq
    }
  }
  return [...byId.values()]
}
