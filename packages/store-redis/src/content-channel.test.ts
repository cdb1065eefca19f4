import { describeContentChannel } from '@strata-memory/core/testing'
import type { RedisClientType } from 'redis'
import { afterAll, beforeAll } from 'vitest'
import { redisStore } from './redis-store'
import { cleanUpAndClose, connectTestClient } from './testing/redis-admin'
import { type TestRedis, testRedis } from './testing/redis-server'

let redis: TestRedis
let admin: RedisClientType
const RUN_PREFIX = `strata-content-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
let runs = 0

beforeAll(async () => {
  redis = await testRedis()
  admin = await connectTestClient(redis.url)
})

afterAll(async () => {
  await cleanUpAndClose(admin, `${RUN_PREFIX}*`)
  await redis?.stop()
})

// The content channel's key cases (offload, citation, retrieval, finished-task and archive queries, sharing) on Redis.
describeContentChannel('redisStore', () => redisStore({ url: redis.url, prefix: `${RUN_PREFIX}-${++runs}` }))
