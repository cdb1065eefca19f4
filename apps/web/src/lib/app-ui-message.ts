import type { StrataDataTypes, StrataMessageMetadata, StrataUIMessage } from '@strata-memory/ai-sdk'

/** The data of a `data-memory-compaction` part: a compaction of the thread ended, in words for people. */
export interface MemoryCompactionData {
  threadId: string
  /** What started it: `budget` (the input budget filled up), `waterfall` or `manual`. */
  trigger: string
  /** Items moved to the archive. */
  itemsArchived: number
  tokensBefore: number
  tokensAfter: number
  /** A line for the chat. */
  text: string
}

/**
 * The app's chat message: Strata's parts and metadata plus `data-memory-compaction`, which the route
 * writes while a budget compaction ends during a response.
 */
export type AppUIMessage = StrataUIMessage<
  StrataMessageMetadata,
  StrataDataTypes & { 'memory-compaction': MemoryCompactionData }
>
