import { join } from 'node:path'
import { createMemory, type Memory, type StrataStore } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { redisStore } from '@strata-memory/store-redis'

/** The environment variables the app reads (process.env by default). */
type Environment = Readonly<Record<string, string | undefined>>

/**
 * The app's store: Redis when `REDIS_URL` is set, else the file store in the app's own folder
 * (`.strata/`, or `STRATA_MEMORY_DIR`): embedded, nothing to start.
 */
export function appStore(env: Environment = process.env): StrataStore {
  if (env.REDIS_URL) return redisStore({ url: env.REDIS_URL, prefix: 'strata-web' })
  return fileStore({ dir: env.STRATA_MEMORY_DIR ?? join(process.cwd(), '.strata'), fsync: false })
}

/**
 * The memory the app runs on: the default ladder (global, project, task), budget compaction at
 * 16k input tokens and automatic transitions, so a long task closes itself too.
 */
export function createAppMemory(store: StrataStore): Memory {
  return createMemory({
    store,
    compaction: { budget: { inputTokens: 16_000 }, autoTransitions: {} },
  })
}

const shared = globalThis as typeof globalThis & { strataWebMemory?: Memory }

/** One memory per server process (kept across hot reloads in development). */
export function appMemory(): Memory {
  shared.strataWebMemory ??= createAppMemory(appStore())
  return shared.strataWebMemory
}
