import type { RedisClientType } from 'redis'
import { afterAll, beforeAll } from 'vitest'
import { redisStore } from '../redis-store'
import { cleanUpAndClose, connectTestClient } from './redis-admin'
import { type TestRedis, testRedis } from './redis-server'

/**
 * For a file that runs one of core's shared suites on Redis: starts a test server before the file's
 * tests and removes its keys and stops it after. Returns a factory of stores, each on a prefix of its
 * own under `label`, so the suite's tests never see one another's threads.
 */
export function redisSuiteStores(label: string): () => ReturnType<typeof redisStore> {
  let redis: TestRedis
  let admin: RedisClientType
  const runPrefix = `strata-${label}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  let runs = 0

  beforeAll(async () => {
    redis = await testRedis()
    admin = await connectTestClient(redis.url)
  })

  afterAll(async () => {
    await cleanUpAndClose(admin, `${runPrefix}*`)
    await redis?.stop()
  })

  return () => redisStore({ url: redis.url, prefix: `${runPrefix}-${++runs}` })
}
