import { describeThreadRewind } from '@strata-memory/core/testing'
import type { RedisClientType } from 'redis'
import { afterAll, beforeAll } from 'vitest'
import { redisStore } from './redis-store'
import { cleanUpAndClose, connectTestClient } from './testing/redis-admin'
import { type TestRedis, testRedis } from './testing/redis-server'

let redis: TestRedis
let admin: RedisClientType
const RUN_PREFIX = `strata-rewind-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
let runs = 0

beforeAll(async () => {
  redis = await testRedis()
  admin = await connectTestClient(redis.url)
})

afterAll(async () => {
  await cleanUpAndClose(admin, `${RUN_PREFIX}*`)
  await redis?.stop()
})

// Regenerate, edit, reopen, conflicts and refusals of thread.rewind() on Redis.
describeThreadRewind('redisStore', () => redisStore({ url: redis.url, prefix: `${RUN_PREFIX}-${++runs}` }))
