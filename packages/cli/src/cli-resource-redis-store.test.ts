import { redisStore } from '@strata-memory/store-redis'
import { createClient, type RedisClientType } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestRedis, testRedis } from '../../store-redis/src/testing/redis-server'
import { FIXTURE_RESOURCE, FIXTURE_RESOURCE_THREADS, writeFixtureResource } from './testing/fixture-resource'
import { runStrata, runStrataJson } from './testing/run-strata'

let redis: TestRedis
let admin: RedisClientType
const prefix = `strata-cli-resource-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
const store = () => ['--store', redis.url, '--prefix', prefix]

beforeAll(async () => {
  redis = await testRedis()
  admin = createClient({ url: redis.url, socket: { reconnectStrategy: false } }) as RedisClientType
  await admin.connect()
  const writer = redisStore({ url: redis.url, prefix })
  await writeFixtureResource(writer)
  await writer.close?.()
}, 60_000)

afterAll(async () => {
  for await (const keys of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
    if (keys.length > 0) await admin.del(keys)
  }
  await admin.close()
  await redis?.stop()
})

describe('strata resource and strata query --resource on Redis (the built binary)', {
  timeout: 60_000,
}, () => {
  it('resource lists the threads newest first, the working memory and the facts', async () => {
    const { code, json } = await runStrataJson<{
      threads: { threadId: string; items: number }[]
      workingMemory: { value: string; version: number }
      facts: { sources: { threadId: string }[] }[]
    }>([...store(), 'resource', FIXTURE_RESOURCE])
    expect(code).toBe(0)
    expect(json.threads.map((row) => row.threadId)).toEqual([...FIXTURE_RESOURCE_THREADS].reverse())
    expect(json.threads.map((row) => row.items)).toEqual([8, 8, 8])
    expect(json.workingMemory).toMatchObject({ value: 'Name: Ana\nDiet: vegetarian\nCity: Lyon', version: 2 })
    expect(json.facts.length).toBeGreaterThan(0)
    expect(
      json.facts.flatMap((fact) => fact.sources).every((source) => source.threadId.startsWith('user-42.')),
    ).toBe(true)
  })

  it('query --resource ranks hits of the resource’s threads only', async () => {
    const { code, json } = await runStrataJson<{ hits: { threadId: string; seq: number; score: number }[] }>([
      ...store(),
      'query',
      '--resource',
      FIXTURE_RESOURCE,
      'dinner',
      'Saturday',
    ])
    expect(code).toBe(0)
    expect(json.hits.length).toBeGreaterThan(0)
    expect(json.hits.every((hit) => hit.threadId.startsWith('user-42.'))).toBe(true)
    const scores = json.hits.map((hit) => hit.score)
    expect(scores).toEqual([...scores].sort((left, right) => right - left))
    const unknown = await runStrata([...store(), 'resource', 'user-99'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/^strata: Resource 'user-99' not found in redis:\/\//)
  })
})
