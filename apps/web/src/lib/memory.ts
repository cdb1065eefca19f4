import { join } from 'node:path'
import { createMemory, type Memory, type StrataStore } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { redisStore } from '@strata-memory/store-redis'
import { redisRuns, type SharedRuns } from './shared-runs'

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
 * 20k input tokens and automatic transitions, so a long task closes itself too. The budget counts
 * what the model is sent: the context, the system prompt and the tool definitions (about 1 600
 * tokens for the memory, scope and editor tools); a task of the scripted agent peaks near 13k with
 * them, under the compaction threshold (80%), so its steps stay in view until it closes.
 * `budgetTokens` sets another input budget (a smaller one shows budget compactions sooner).
 */
export function createAppMemory(
  store: StrataStore,
  { budgetTokens = 20_000 }: { budgetTokens?: number } = {},
): Memory {
  return createMemory({
    store,
    compaction: { budget: { inputTokens: budgetTokens }, autoTransitions: {} },
  })
}

const shared = globalThis as typeof globalThis & { strataWebMemory?: Memory }

/** The input budget from `STRATA_WEB_BUDGET_TOKENS` (a whole number ≥ 1 000), else the default. */
export function budgetTokens(env: Environment = process.env): number | undefined {
  const value = Number(env.STRATA_WEB_BUDGET_TOKENS)
  return Number.isInteger(value) && value >= 1_000 ? value : undefined
}

/**
 * One memory per server process (kept across hot reloads in development). `STRATA_WEB_BUDGET_TOKENS`
 * sets a smaller input budget, to watch budget compactions happen.
 */
export function appMemory(): Memory {
  const budget = budgetTokens()
  shared.strataWebMemory ??= createAppMemory(appStore(), budget === undefined ? {} : { budgetTokens: budget })
  return shared.strataWebMemory
}

const runsShared = globalThis as typeof globalThis & { strataWebSharedRuns?: SharedRuns | null }

/**
 * The shared stream store of the chat's responses: on Redis (`resumable-stream`) when `REDIS_URL` is
 * set, so a page resumes an answer on whichever process runs it; else none (one process: its own
 * runs, chat-runs.ts).
 */
export function appRuns(env: Environment = process.env): SharedRuns | undefined {
  if (runsShared.strataWebSharedRuns === undefined) {
    runsShared.strataWebSharedRuns = env.REDIS_URL
      ? redisRuns({ url: env.REDIS_URL, prefix: 'strata-web' })
      : null
  }
  return runsShared.strataWebSharedRuns ?? undefined
}
