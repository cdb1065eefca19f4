import { wholeNumber } from '../option-checks'

/** Options of the waterfall: short-term and long-term summaries behind an immediate window. */
export interface WaterfallOptions {
  /**
   * History items kept in full at the end of the context.
   * @default 64
   */
  window?: number
  /**
   * History items between two compactions after the first (which runs at `2 × window + 1`).
   * @default 64
   */
  every?: number
}

/** The waterfall's options with defaults applied and checked, or false (off). */
export type ResolvedWaterfall = Required<WaterfallOptions> | false

/** What the waterfall reads of a thread's resolved compaction options. */
export interface WaterfallCompaction {
  waterfall: ResolvedWaterfall
}

/** Applies the waterfall's defaults and validates: `STRATA_INVALID_OPTIONS` with what to change. */
export function resolveWaterfall(waterfall: WaterfallOptions | false = false): ResolvedWaterfall {
  if (waterfall === false) return false
  const { window = 64, every = 64 } = waterfall
  wholeNumber(window, 'waterfall.window', 1)
  wholeNumber(every, 'waterfall.every', 1)
  return { window, every }
}
