import type { MemoryOptions } from '@strata-memory/core'

/**
 * What a `strata.config.{ts,mts,mjs,js}` module exports (as its default export, or a function returning
 * it): the app's memory options, so the CLI builds contexts the way the app does. `store` is ignored:
 * the CLI's store is `--store`.
 */
export interface StrataConfig extends Omit<MemoryOptions<string>, 'store'> {
  /** The app's system prompt, placed first in `strata context`. */
  system?: string
}

/**
 * Types a `strata.config.ts`.
 *
 * @example
 * // strata.config.ts
 * import { defineConfig } from '@strata-memory/cli'
 * export default defineConfig({ levels: ['global', 'session', 'step'], compaction: { budget: { model: 'gpt-4o' } } })
 */
export function defineConfig(config: StrataConfig | (() => StrataConfig | Promise<StrataConfig>)) {
  return config
}
