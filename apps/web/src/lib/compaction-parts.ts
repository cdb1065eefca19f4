import type { CompactionEndEvent, Memory } from '@strata-memory/core'
import type { UIMessageStreamWriter } from 'ai'
import type { AppUIMessage, MemoryCompactionData } from './app-ui-message'

const TRIGGERS: Record<string, string> = {
  budget: 'the input budget filled up',
  waterfall: 'the waterfall summarized older turns',
  manual: 'asked for',
}

/** The chat's line for a compaction that moved items to the archive. */
export function compactionData(event: CompactionEndEvent): MemoryCompactionData {
  const why = TRIGGERS[event.trigger] ?? event.trigger
  return {
    threadId: event.threadId,
    trigger: event.trigger,
    itemsArchived: event.itemsArchived,
    tokensBefore: event.tokensBefore,
    tokensAfter: event.tokensAfter,
    text: `Memory compacted (${why}): ${event.itemsArchived} items summarized and archived, ${event.tokensBefore.toLocaleString('en')} → ${event.tokensAfter.toLocaleString('en')} tokens.`,
  }
}

/**
 * Writes a `data-memory-compaction` part for each compaction of the thread that ends while the
 * response streams and archived something (a skipped or failed one is not news for the chat).
 * Returns a function that stops listening.
 */
export function writeCompactionParts(options: {
  writer: UIMessageStreamWriter<AppUIMessage>
  memory: Memory
  threadId: string
}): () => void {
  const { writer, memory, threadId } = options
  let count = 0
  return memory.on('compaction-end', (event) => {
    if (event.threadId !== threadId || event.skipped !== undefined || event.error !== undefined) return
    if (event.itemsArchived === 0) return
    writer.write({
      type: 'data-memory-compaction',
      id: `compaction-${Date.now()}-${++count}`,
      data: compactionData(event),
    })
  })
}
