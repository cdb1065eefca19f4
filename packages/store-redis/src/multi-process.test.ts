import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { RedisClientType } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redisStore } from './redis-store'
import { cleanUpAndClose, connectTestClient } from './testing/redis-admin'
import { type TestRedis, testRedis } from './testing/redis-server'

const run = promisify(execFile)
const CHILD = fileURLToPath(new URL('./testing/append-child.mjs', import.meta.url))
const WORKING_MEMORY_CHILD = fileURLToPath(new URL('./testing/working-memory-child.mjs', import.meta.url))
const BUILT = fileURLToPath(new URL('../dist/index.js', import.meta.url))
const PER_WRITER = 1_000

let redis: TestRedis
let admin: RedisClientType
const prefix = `strata-multi-${process.pid}-${Math.random().toString(36).slice(2, 8)}`

beforeAll(async () => {
  redis = await testRedis()
  admin = await connectTestClient(redis.url)
})

afterAll(async () => {
  await cleanUpAndClose(admin, `${prefix}:*`)
  await redis?.stop()
})

describe('two processes appending to one thread', () => {
  it('store every item once with seqs 1..2000', async () => {
    if (!existsSync(BUILT)) {
      throw new Error(
        'The child processes import the built package: run `pnpm --filter @strata-memory/store-redis... build` first.',
      )
    }
    const threadId = 'shared-thread'
    const writers = ['left', 'right']
    const outputs = await Promise.all(
      writers.map((writer) =>
        run(process.execPath, [CHILD], {
          env: {
            ...process.env,
            STRATA_TEST_REDIS_URL: redis.url,
            STRATA_TEST_PREFIX: prefix,
            STRATA_TEST_THREAD: threadId,
            STRATA_TEST_WRITER: writer,
            STRATA_TEST_COUNT: String(PER_WRITER),
          },
          timeout: 50_000,
        }),
      ),
    )
    const conflicts = outputs.map(({ stdout }) => (JSON.parse(stdout) as { conflicts: number }).conflicts)

    const items = await redisStore({ client: admin, prefix }).read(threadId)

    const total = writers.length * PER_WRITER
    expect(items.map((item) => item.seq)).toEqual(Array.from({ length: total }, (_, index) => index + 1))
    expect(new Set(items.map((item) => item.id)).size).toBe(total)
    for (const writer of writers) {
      const mine = items.filter((item) => item.meta?.writer === writer).map((item) => item.meta?.index)
      expect(mine).toEqual(Array.from({ length: PER_WRITER }, (_, index) => index))
    }
    // Both really raced: at least one of them had to retry.
    expect(conflicts.reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0)
  }, 60_000)
})

describe('two processes write working memory at once', () => {
  it('one wins, the other gets the typed conflict, nothing lost', async () => {
    const resourceId = 'user-42'
    const notes = 40
    const writers = ['left', 'right']
    const outputs = await Promise.all(
      writers.map((writer) =>
        run(process.execPath, [WORKING_MEMORY_CHILD], {
          env: {
            ...process.env,
            STRATA_TEST_REDIS_URL: redis.url,
            STRATA_TEST_PREFIX: prefix,
            STRATA_TEST_RESOURCE: resourceId,
            STRATA_TEST_WRITER: writer,
            STRATA_TEST_NOTES: String(notes),
          },
          timeout: 50_000,
        }),
      ),
    )
    const reports = outputs.map(
      ({ stdout }) =>
        JSON.parse(stdout) as {
          writer: string
          race: { outcome: string; details?: Record<string, unknown> }
        },
    )
    expect(reports.map((report) => report.race.outcome).sort()).toEqual(['conflict', 'won'])
    const loser = reports.find((report) => report.race.outcome === 'conflict')!
    // The winner may have written more notes by the time the loser's write was refused.
    expect(loser.race.details).toMatchObject({ resourceId, expectedVersion: 0 })
    expect(loser.race.details?.actualVersion).toBeGreaterThanOrEqual(1)

    const stored = await redisStore({ client: admin, prefix }).getWorkingMemory(resourceId)
    const kept = (stored!.value as { notes: string[] }).notes
    // Every write that succeeded is there, in the order it was made: nothing lost, nothing twice.
    expect(stored?.version).toBe(2 + 2 * notes)
    expect(kept).toHaveLength(2 + 2 * notes)
    expect(kept[0]).toBe(`${reports.find((report) => report.race.outcome === 'won')!.writer} race`)
    for (const writer of writers) {
      const mine = kept.filter((note) => note.startsWith(`${writer} `))
      expect(mine.filter((note) => note !== `${writer} race`)).toEqual(
        Array.from({ length: notes }, (_, index) => `${writer} ${index}`),
      )
      expect(mine).toContain(`${writer} race`)
    }
  }, 60_000)
})
