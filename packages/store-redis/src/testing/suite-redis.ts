import type { RedisClientType } from 'redis'
import { afterAll, beforeAll } from 'vitest'
import { redisStore } from '../redis-store'
import { cleanUpAndClose, connectTestClient } from './redis-admin'
import { type TestRedis, testRedis } from './redis-server'

/** What {@link redisTestRun} gives a test file: its server's url, an admin client and prefixes of its own. */
export interface RedisTestRun {
  readonly url: string
  readonly admin: RedisClientType
  /** A key prefix no other test (of this file or another) uses. */
  newPrefix(): string
}

/**
 * A test file's Redis: starts a test server before the file's tests and connects an admin client;
 * removes every key under the file's prefixes and stops the server after. `url` and `admin` are read
 * inside tests (they exist once the file's `beforeAll` ran).
 */
export function redisTestRun(label: string): RedisTestRun {
  let redis: TestRedis | undefined
  let admin: RedisClientType | undefined
  const runPrefix = `strata-${label}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  let runs = 0

  beforeAll(async () => {
    redis = await testRedis()
    admin = await connectTestClient(redis.url)
  })

  afterAll(async () => {
    if (admin !== undefined) await cleanUpAndClose(admin, `${runPrefix}*`)
    await redis?.stop()
  })

  return {
    get url() {
      return redis!.url
    },
    get admin() {
      return admin!
    },
    newPrefix: () => `${runPrefix}-${++runs}`,
  }
}

/**
 * For a file that runs one of core's shared suites on Redis (see {@link redisTestRun}): a factory of
 * stores, each on a prefix of its own under `label`, so the suite's tests never see one another's threads.
 */
export function redisSuiteStores(label: string): () => ReturnType<typeof redisStore> {
  const run = redisTestRun(label)
  return () => redisStore({ url: run.url, prefix: run.newPrefix() })
}
