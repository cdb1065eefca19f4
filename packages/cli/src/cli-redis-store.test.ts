import type { Item } from '@strata-memory/core'
import { redisStore } from '@strata-memory/store-redis'
import { createClient, type RedisClientType } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestRedis, testRedis } from '../../store-redis/src/testing/redis-server'
import { FIXTURE_THREAD, writeFixtureThread } from './testing/fixture-thread'
import { runStrata, runStrataJson, startStrata } from './testing/run-strata'

let redis: TestRedis
let admin: RedisClientType
const prefix = `strata-cli-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
const store = () => ['--store', redis.url, '--prefix', prefix]
const logKey = (threadId: string) => `${prefix}:{${threadId}}:log`

beforeAll(async () => {
  redis = await testRedis()
  admin = createClient({ url: redis.url, socket: { reconnectStrategy: false } }) as RedisClientType
  await admin.connect()
  const writer = redisStore({ url: redis.url, prefix })
  await writeFixtureThread(writer)
  await writeFixtureThread(writer, 'damaged')
  await writer.close?.()
}, 60_000)

afterAll(async () => {
  for await (const keys of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
    if (keys.length > 0) await admin.del(keys)
  }
  await admin.close()
  await redis?.stop()
})

describe('strata on Redis (the built binary)', { timeout: 60_000 }, () => {
  it('threads, status, view and context read the thread', async () => {
    const threads = await runStrataJson<{ threads: { threadId: string; archived: number }[] }>([
      ...store(),
      'threads',
    ])
    expect(threads.code).toBe(0)
    expect(
      threads.json.threads.find((thread) => thread.threadId === FIXTURE_THREAD)?.archived,
    ).toBeGreaterThan(0)
    const status = await runStrataJson<{
      level: string
      store: { name: string }
      archivedRanges: unknown[]
      scopes: { title: string }[]
    }>([...store(), 'status', FIXTURE_THREAD])
    expect(status.json).toMatchObject({
      level: 'project',
      store: { name: 'redis' },
      scopes: [{ title: 'Garden' }],
    })
    expect(status.json.archivedRanges.length).toBeGreaterThan(0)
    const statusText = await runStrata([...store(), 'status', FIXTURE_THREAD])
    expect(statusText.stdout).toContain('(redis store')
    const view = await runStrataJson<{ items: Item[] }>([
      ...store(),
      'view',
      FIXTURE_THREAD,
      '--level',
      'project',
    ])
    expect(view.json.items.some((item) => item.type === 'summary')).toBe(true)
    const context = await runStrata([...store(), 'context', FIXTURE_THREAD])
    expect(context.stdout).toContain('[MEMORY:SEMANTIC]')
  })

  it('export and import round-trip through Redis', async () => {
    const exported = await runStrata([...store(), 'export', FIXTURE_THREAD, '--archive'])
    const { writeFileSync, mkdtempSync } = await import('node:fs')
    const { join } = await import('node:path')
    const { tmpdir } = await import('node:os')
    const file = join(mkdtempSync(join(tmpdir(), 'strata-cli-redis-')), 'export.jsonl')
    writeFileSync(file, exported.stdout)
    const imported = await runStrata([...store(), 'import', file, '--thread', 'copy-redis'])
    expect(imported.code).toBe(0)
    const again = await runStrata([...store(), 'export', 'copy-redis', '--archive'])
    expect(again.stdout.split('\n').slice(1)).toEqual(exported.stdout.split('\n').slice(1))
  })

  it('verify passes a clean thread and finds a corrupt element, a gap and an orphaned tool call', async () => {
    const clean = await runStrata([...store(), 'verify', FIXTURE_THREAD])
    expect(clean.code).toBe(0)
    expect(clean.stdout).toMatch(/✓ user-42\.chat-7: \d+ items, no problem/)
    // The tool result of the fetch call (and so the call's pairing) becomes garbage.
    const elements = await admin.lRange(logKey('damaged'), 0, -1)
    const resultIndex = elements.findIndex(
      (element) => element.includes('"type":"tool-result"') && element.includes('call-fetch'),
    )
    await admin.lSet(logKey('damaged'), resultIndex, '{"seq": broken')
    const { code, json } = await runStrataJson<{ threads: { problems: { kind: string }[] }[] }>([
      ...store(),
      'verify',
      'damaged',
    ])
    expect(code).toBe(1)
    expect(json.threads[0]?.problems.map((problem) => problem.kind).sort()).toEqual([
      'corrupt-line',
      'orphan-tool-call',
      'seq-gap',
    ])
    const all = await runStrata([...store(), 'verify', '--all'])
    expect(all.code).toBe(1)
    expect(all.stdout).toMatch(/✗ damaged: 3 problems/)
  })

  it('compact --force compacts a thread on Redis', async () => {
    const { createMemory } = await import('@strata-memory/core')
    const writer = redisStore({ url: redis.url, prefix })
    const thread = await createMemory({ store: writer }).thread('to-compact')
    for (let turn = 1; turn <= 6; turn++) {
      await thread.append({ role: 'user', content: `Question ${turn}: ${'is the parcel here? '.repeat(20)}` })
      await thread.append({
        role: 'assistant',
        content: `Answer ${turn}: ${'not yet, tomorrow. '.repeat(20)}`,
      })
    }
    await writer.close?.()
    const { code, json } = await runStrataJson<{ compacted: boolean; last: { itemsArchived: number } }>([
      ...store(),
      'compact',
      'to-compact',
      '--force',
    ])
    expect(code).toBe(0)
    expect(json.compacted).toBe(true)
    expect(json.last.itemsArchived).toBeGreaterThan(0)
    const verify = await runStrata([...store(), 'verify', 'to-compact'])
    expect(verify.code).toBe(0)
  })

  it('a server that is not there, an unknown thread and a bad id are one-line errors', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['--store', 'redis://127.0.0.1:1', 'threads'],
        /^strata: Cannot connect to Redis at redis:\/\/127\.0\.0\.1:1/,
      ],
      [
        ['--store', 'redis://user:secret@127.0.0.1:1', 'threads'],
        /^strata: Cannot connect to Redis at redis:\/\/user:\*\*\*@127/,
      ],
      [[...store(), 'status', 'nobody'], /^strata: Thread 'nobody' not found in redis:/],
      [[...store(), 'verify', 'nobody'], /^strata: Thread 'nobody' not found in redis:/],
      [
        [...store(), 'tail', 'dir/thread'],
        /^strata: Thread 'dir\/thread \(stored as _\.dir_2Fthread\)' not found/,
      ],
      [[...store(), 'tail', ''], /^strata: Bad thread id ''/],
    ]
    for (const [args, message] of cases) {
      const run = await runStrata(args)
      expect(run.code, args.join(' ')).toBe(2)
      expect(run.stderr.trim().split('\n'), args.join(' ')).toEqual([expect.stringMatching(message)])
    }
  })

  it('tail prints the newest items and follows new ones', async () => {
    const tail = startStrata([...store(), 'tail', FIXTURE_THREAD, '--lines', '2', '--interval', '50'])
    try {
      // The fixture's newest items are the facts its compaction wrote (whatever their wording).
      await tail.waitFor(/#\d+\s+global\s+fact\s/)
      const { createMemory } = await import('@strata-memory/core')
      const writer = redisStore({ url: redis.url, prefix })
      const thread = await createMemory({ store: writer }).thread(FIXTURE_THREAD)
      await thread.append({ role: 'user', content: 'Tail sees this.' })
      await writer.close?.()
      const output = await tail.waitFor(/Tail sees this\./)
      expect(output.trim().split('\n')).toHaveLength(3)
    } finally {
      expect(await tail.stop()).toBe(0)
    }
  })
})
