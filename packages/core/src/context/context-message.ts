import type { MessagePart, MessageRole } from '../items'

/** One message of the context sent to a model. Adapters map it to their framework's message type. */
export interface ContextMessage {
  role: MessageRole
  content: MessagePart[]
  /**
   * What Strata rendered the message from, when it is not one of the conversation's stored messages:
   * the system prompt, a memory slot, a summary, a fact, a transition, a scope's opening item, or a
   * note the context adds (left-out items, grouped-out results). Absent on the conversation's own
   * messages, whatever their text: adapters read it instead of the rendered text.
   */
  kind?: ContextMessageKind
}

/** See {@link ContextMessage.kind}. */
export type ContextMessageKind = 'system' | 'memory' | 'summary' | 'fact' | 'transition' | 'scope' | 'note'

/** What a context costs and saves, in tokens of the memory's token counter. */
export interface ContextStats {
  /** The level whose view was rendered. */
  level: string
  /** The whole thread as raw messages (active and archived), plus the system prompt. */
  totalTokens: number
  /** What the context sends. */
  contextTokens: number
  /** `max(0, totalTokens − contextTokens)`. */
  savedTokens: number
  /** `savedTokens / totalTokens`, 0 for an empty thread. */
  savedRatio: number
  /** Items in the thread, active and archived. */
  itemsTotal: number
  /** Items in the level view. */
  itemsVisible: number
  /** Messages in the context. */
  messages: number
  /** The token counter's name. */
  tokenCounter: string
  /**
   * Under `compaction.budget`: the most tokens this context could hold (the input budget, calibrated
   * by the last usage report), which `contextTokens` never exceeds.
   */
  inputBudget?: number
  /** Under `compaction.budget`: view items left out of this context to fit it (they stay stored). */
  omittedItems?: number
}
