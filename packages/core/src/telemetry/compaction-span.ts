import type { CompactionEndEvent, MemoryEventEmitter } from '../events'
import type { TelemetryTracer } from './telemetry-tracer'
import { traced } from './traced'

/** What a compaction span names and counts. */
export interface CompactionSpanInput {
  threadId: string
  /** `budget` or `waterfall`. */
  policy: string
  /** What started it: `budget`, `manual`, `waterfall`. */
  trigger: string
  /** The thread's active items now. */
  items: () => number
}

/**
 * Runs one compaction inside a `strata.compaction` span: trigger, policy, active items and tokens
 * before and after (tokens from the run's `compaction-end` event), what was archived and written, a
 * skip or a failure. Without a tracer, runs it as it is.
 */
export function traceCompaction(
  tracer: TelemetryTracer | undefined,
  events: MemoryEventEmitter,
  input: CompactionSpanInput,
  run: () => Promise<void>,
): Promise<void> {
  if (tracer === undefined) return run()
  const attributes = {
    'strata.thread.id': input.threadId,
    'strata.compaction.policy': input.policy,
    'strata.compaction.trigger': input.trigger,
    'strata.compaction.items_before': input.items(),
  }
  return traced(tracer, 'strata.compaction', attributes, async (span) => {
    let end: CompactionEndEvent | undefined
    const waterfall = input.policy === 'waterfall'
    const stop = events.on('compaction-end', (event) => {
      if (event.threadId === input.threadId && (event.trigger === 'waterfall') === waterfall) end = event
    })
    try {
      await run()
    } finally {
      stop()
      span?.setAttribute('strata.compaction.items_after', input.items())
      if (end !== undefined) {
        span?.setAttributes({
          'strata.compaction.tokens_before': end.tokensBefore,
          'strata.compaction.tokens_after': end.tokensAfter,
          'strata.compaction.items_archived': end.itemsArchived,
          'strata.compaction.items_written': end.itemsWritten,
          'strata.compaction.duration_ms': end.durationMs,
          ...costAttributes(end),
          ...(end.skipped !== undefined ? { 'strata.compaction.skipped': end.skipped } : {}),
        })
        if (end.error !== undefined) {
          const message = end.error instanceof Error ? end.error.message : String(end.error)
          span?.setAttribute('strata.compaction.error', message)
          span?.setStatus({ code: 2, message })
        }
      }
    }
  })
}

/** What a compaction step cost, for its span: the optional figures its end event carries. */
function costAttributes(end: CompactionEndEvent): Record<string, number> {
  const attributes: Record<string, number> = {}
  const figures = {
    'strata.compaction.items_read': end.itemsRead,
    'strata.compaction.summaries_written': end.summariesWritten,
    'strata.compaction.facts_written': end.factsWritten,
    'strata.compaction.memory_items': end.memoryItems,
    'strata.compaction.chunks_left': end.chunksLeft,
  }
  for (const [name, value] of Object.entries(figures)) if (value !== undefined) attributes[name] = value
  return attributes
}
