import type { MessagePart, MessageRole } from '../items'

/** One message of the context sent to a model. Adapters map it to their framework's message type. */
export interface ContextMessage {
  role: MessageRole
  content: MessagePart[]
}

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
