import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createMemory, StrataError, type UnsequencedItem } from '@strata-memory/core'
import {
  type ContendedRequestsReport,
  expectRequestsOneAtATime,
  makeItems,
} from '@strata-memory/core/testing'
import type { RedisClientType } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redisStore } from './redis-store'
import { hashSlot } from './testing/hash-slot'
import { cleanUpAndClose, connectTestClient, keysMatching } from './testing/redis-admin'
import { type TestRedis, testRedis } from './testing/redis-server'

const CHILD = fileURLToPath(new URL('./testing/request-child.mjs', import.meta.url))
const BUILT = fileURLToPath(new URL('../dist/index.js', import.meta.url))
const REQUESTS_PER_PROCESS = 20

let redis: TestRedis
let admin: RedisClientType
const prefix = `strata-hold-${process.pid}-${Math.random().toString(36).slice(2, 8)}`

beforeAll(async () => {
  redis = await testRedis()
  admin = await connectTestClient(redis.url)
})

afterAll(async () => {
  await cleanUpAndClose(admin, `${prefix}*`)
  await redis?.stop()
})

function start(env: Record<string, string>): {
  child: ChildProcess
  stdout: () => string
  done: Promise<string>
} {
  const child = spawn(process.execPath, [CHILD], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, STRATA_TEST_REDIS_URL: redis.url, STRATA_TEST_PREFIX: prefix, ...env },
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr!.on('data', (chunk) => {
    stderr += chunk
  })
  const done = new Promise<string>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) =>
      code === 0 ? resolve(stdout) : reject(new Error(`child ended with ${code ?? signal}: ${stderr}`)),
    )
  })
  return { child, stdout: () => stdout, done }
}

async function failure(call: () => Promise<unknown>): Promise<unknown> {
  return call().then(
    () => undefined,
    (error: unknown) => error,
  )
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Messages of `textLength` characters: over 8 KB of JSON an append takes the transaction path. */
const sized = (count: number, firstTurn: number, textLength: number): UnsequencedItem[] =>
  makeItems(count, { firstTurn }).map(
    (item) => ({ ...item, content: [{ type: 'text', text: 'x'.repeat(textLength) }] }) as UnsequencedItem,
  )

describe('the lease key', () => {
  it('is hash-tagged with the thread, holds the owner with a PX expiry the thread ttl never touches', async () => {
    const keyPrefix = `${prefix}-key`
    const store = redisStore({ client: admin, prefix: keyPrefix, ttlSeconds: 600 })
    const key = `${keyPrefix}:{user-42.chat-7}:lease`
    await store.acquireLease('user-42.chat-7', { owner: 'holder', ttlMs: 5_000 })
    expect(hashSlot(key)).toBe(hashSlot(`${keyPrefix}:{user-42.chat-7}:log`))
    expect(await admin.get(key)).toBe('holder')
    // The holder's writes, small (script path) and large (transaction path), refresh the thread's
    // ttl on its keys, not on the lease.
    await store.append('user-42.chat-7', makeItems(2), { expectedSeq: 0, lease: 'holder' })
    await store.append('user-42.chat-7', sized(3, 3, 6_000), {
      expectedSeq: 2,
      lease: 'holder',
    })
    await store.archive('user-42.chat-7', { seqs: [1], lease: 'holder' })
    await store.setState('user-42.chat-7', { mode: 'idle' }, { lease: 'holder' })
    expect(await admin.pTTL(key)).toBeLessThanOrEqual(5_000)
    expect(await admin.ttl(`${keyPrefix}:{user-42.chat-7}:log`)).toBeGreaterThan(500)
    // Everyone else's, on both paths, is refused before it writes, and leaves no gate key.
    const before = await store.read('user-42.chat-7')
    for (const textLength of [10, 6_000]) {
      const error = await failure(() =>
        store.append('user-42.chat-7', sized(2, 6, textLength), { expectedSeq: 5 }),
      )
      expect(StrataError.isInstance(error, 'STRATA_THREAD_BUSY')).toBe(true)
      expect((error as StrataError<'STRATA_THREAD_BUSY'>).details.expiresAt).toBeGreaterThan(Date.now())
    }
    expect(await store.read('user-42.chat-7')).toEqual(before)
    expect((await keysMatching(admin, `${keyPrefix}:*`)).filter((name) => name.includes(':gate:'))).toEqual(
      [],
    )
    expect(await store.releaseLease('user-42.chat-7', { owner: 'holder' })).toBe(true)
    expect(await admin.exists(key)).toBe(0)
  })

  it('a foreign value under the lease key is STRATA_CORRUPT_LOG naming it, and nothing is written', async () => {
    const keyPrefix = `${prefix}-foreign`
    const store = redisStore({ client: admin, prefix: keyPrefix })
    const key = `${keyPrefix}:{t}:lease`
    await admin.hSet(key, 'not', 'ours')
    const error = await failure(() => store.append('t', makeItems(1), { expectedSeq: 0 }))
    expect(StrataError.isInstance(error, 'STRATA_CORRUPT_LOG')).toBe(true)
    expect((error as StrataError<'STRATA_CORRUPT_LOG'>).details.key).toBe(key)
    expect(await admin.exists(`${keyPrefix}:{t}:log`)).toBe(0)
  })
})

describe('one request at a time per thread, across processes (Redis)', () => {
  it('2 processes × 20 concurrent requests: each completes or is STRATA_THREAD_BUSY; no orphan tool call', async () => {
    if (!existsSync(BUILT)) throw new Error('Build the packages first: pnpm build.')
    const env = {
      STRATA_TEST_MODE: 'requests',
      STRATA_TEST_THREAD: 'contended',
      STRATA_TEST_COUNT: String(REQUESTS_PER_PROCESS),
      STRATA_TEST_START_AT: String(Date.now() + 2_500),
    }
    const outputs = await Promise.all([start(env).done, start(env).done])
    const reports = outputs.map((output) => JSON.parse(output) as ContendedRequestsReport)
    const store = redisStore({ client: admin, prefix })
    await expectRequestsOneAtATime(
      await createMemory({ store }).thread('contended'),
      reports,
      REQUESTS_PER_PROCESS,
    )
    expect(await store.readLease('contended')).toBeUndefined()
  }, 60_000)

  it('a process killed (SIGKILL) while holding does not hold the thread past its lease', async () => {
    if (!existsSync(BUILT)) throw new Error('Build the packages first: pnpm build.')
    const ttlMs = 1_500
    const holder = start({
      STRATA_TEST_MODE: 'hold',
      STRATA_TEST_THREAD: 'killed',
      STRATA_TEST_TTL_MS: String(ttlMs),
    })
    const exited = holder.done.catch(() => undefined)
    while (!holder.stdout().includes('held')) await sleep(10)
    const store = redisStore({ client: admin, prefix })
    const thread = await createMemory({ store }).thread('killed')
    // Held past its ttl while its holder lives: the holder renews it.
    await sleep(ttlMs + 500)
    expect(StrataError.isInstance(await failure(() => thread.hold()), 'STRATA_THREAD_BUSY')).toBe(true)
    expect(
      StrataError.isInstance(
        await failure(() => thread.append({ role: 'user', content: 'while held' })),
        'STRATA_THREAD_BUSY',
      ),
    ).toBe(true)

    holder.child.kill('SIGKILL')
    await exited
    const killedAt = Date.now()
    let hold: Awaited<ReturnType<typeof thread.hold>> | undefined
    while (hold === undefined) {
      hold = (await thread.hold().catch(() => undefined)) as typeof hold
      if (hold === undefined) await sleep(25)
    }
    // The lease lapses at most ttlMs after the last renewal, before the kill; the rest is polling under load.
    expect(Date.now() - killedAt).toBeLessThanOrEqual(ttlMs + 500)
    await thread.append({ role: 'assistant', content: 'the next request' })
    await hold.release()
    expect((await thread.items()).map((item) => item.seq)).toEqual([1, 2])
  }, 30_000)
})
