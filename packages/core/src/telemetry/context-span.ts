import type { ContextStats } from '../context'
import type { TelemetryAttributes } from './telemetry-tracer'

/** The attributes a `strata.context` span ends with: what the context holds and costs. */
export function contextSpanAttributes(stats: ContextStats): TelemetryAttributes {
  return {
    'strata.context.messages': stats.messages,
    'strata.context.tokens': stats.contextTokens,
    'strata.context.total_tokens': stats.totalTokens,
    'strata.context.saved_tokens': stats.savedTokens,
    'strata.context.items_visible': stats.itemsVisible,
    'strata.context.items_total': stats.itemsTotal,
    ...(stats.inputBudget !== undefined ? { 'strata.context.input_budget': stats.inputBudget } : {}),
    ...(stats.omittedItems !== undefined ? { 'strata.context.omitted_items': stats.omittedItems } : {}),
  }
}
