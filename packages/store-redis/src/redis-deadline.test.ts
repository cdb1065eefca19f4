import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Item, StrataError } from '@strata-memory/core'
import { makeItems } from '@strata-memory/core/testing'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { READ_PAGE } from './read-pages'
import { redisStore } from './redis-store'
import { freePort, type RedisServer, startRedisServer } from './testing/redis-server'

/*
 * Issue 31: every call has a deadline. A Redis killed (down) or stopped (SIGSTOP: the connection
 * stays open, nothing answers) makes calls reject with STRATA_STORE_FAILED, reason 'timeout', instead
 * of waiting for the server; a timed-out append retried once the server is back lands once.
 */

const TIMEOUT_MS = 400
/** Generous: the machine running the tests may be busy. Only "not much later than the deadline" is checked. */
const SLACK_MS = 4_000

/** The Measure figures for this fault run, printed once at the end. */
const figures = { appendsTried: 0, appendsAcknowledged: 0, readableAfterRecovery: 0, longestWaitMs: 0 }
afterAll(() => {
  console.info(
    `fault run (redis, timeoutMs ${TIMEOUT_MS}): appends tried ${figures.appendsTried}, acknowledged ${figures.appendsAcknowledged}, items readable after recovery ${figures.readableAfterRecovery}, longest wait with the store down ${Math.round(figures.longestWaitMs)} ms`,
  )
})

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A server with an append-only file synced on every write, in a folder kept across restarts. */
async function durableServer(port?: number, dir?: string): Promise<{ server: RedisServer; dir: string }> {
  const folder = dir ?? mkdtempSync(join(tmpdir(), 'strata-redis-aof-'))
  if (dir === undefined) cleanups.push(() => rmSync(folder, { recursive: true, force: true }))
  const server = await startRedisServer({
    port,
    args: ['--dir', folder, '--appendonly', 'yes', '--appendfsync', 'always'],
  })
  cleanups.push(() => server.stop())
  return { server, dir: folder }
}

/** Runs `call`; returns the typed error it rejected with and how long that took. */
async function timed(call: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now()
  const error = await call().then(
    () => undefined,
    (caught: unknown) => caught,
  )
  const ms = performance.now() - started
  figures.longestWaitMs = Math.max(figures.longestWaitMs, ms)
  return { error, ms }
}

function expectTimeout(error: unknown, method: string): asserts error is StrataError<'STRATA_STORE_FAILED'> {
  expect(StrataError.isInstance(error, 'STRATA_STORE_FAILED'), String(error)).toBe(true)
  const failed = error as StrataError<'STRATA_STORE_FAILED'>
  expect(failed.details.reason).toBe('timeout')
  expect(failed.details.timeoutMs).toBe(TIMEOUT_MS)
  expect(failed.details.command).toBe(method)
}

/** Each item once, seqs 1..n. */
function expectOnce(items: Item[], ids: string[]): void {
  expect(items.map((item) => item.seq)).toEqual(items.map((_item, index) => index + 1))
  expect(items.map((item) => item.id)).toEqual(ids)
}

describe('redisStore timeoutMs', () => {
  it('rejects an append at the deadline while Redis is down, and the retried append lands once when it is back', async () => {
    const { server, dir } = await durableServer()
    const store = redisStore({ url: server.url, prefix: 'deadline', timeoutMs: TIMEOUT_MS })
    cleanups.push(() => store.close().catch(() => undefined))
    const first = makeItems(3)
    await store.append('t', first, { expectedSeq: 0 })

    server.signal('SIGKILL')
    await server.exited()
    const batch = makeItems(2)
    const down = await timed(() => store.append('t', batch, { expectedSeq: 3 }))
    expectTimeout(down.error, 'append')
    expect(down.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS)
    expect(down.error.details.mayHaveLanded).toBe(true)
    expect(down.error.message).toContain('may still land')
    expect(down.error.message).toContain('Retrying the very same append')
    // Reads say nothing changed.
    const read = await timed(() => store.head('t'))
    expectTimeout(read.error, 'head')
    expect(read.error.details.mayHaveLanded).toBe(false)

    // Back on the same port, with its data: the very same append, retried until the client is back.
    await durableServer(server.port, dir)
    let retried: Item[] | undefined
    let attempts = 0
    while (retried === undefined && attempts < 20) {
      attempts++
      const started = performance.now()
      try {
        retried = await store.append('t', batch, { expectedSeq: 3 })
      } catch (error) {
        expectTimeout(error, 'append')
        figures.longestWaitMs = Math.max(figures.longestWaitMs, performance.now() - started)
      }
    }
    expect(retried?.map((item) => item.seq)).toEqual([4, 5])
    expectOnce(
      await store.read('t'),
      [...first, ...batch].map((item) => item.id),
    )
    const [next] = await store.append('t', makeItems(1), { expectedSeq: 5 })
    expect(next?.seq).toBe(6)
    const readable = await store.read('t')
    expectOnce(
      readable,
      [...first, ...batch, next!].map((item) => item.id),
    )
    // Tried: the first, the one that timed out, each retry, the next; acknowledged: first, retried, next.
    figures.appendsTried += 3 + attempts
    figures.appendsAcknowledged += 3
    figures.readableAfterRecovery += readable.length
  }, 60_000)

  it('rejects at the deadline while Redis hangs (SIGSTOP); the append sent meanwhile lands once, retried or not', async () => {
    const { server } = await durableServer()
    const store = redisStore({ url: server.url, prefix: 'hang', timeoutMs: TIMEOUT_MS })
    cleanups.push(() => store.close().catch(() => undefined))
    await store.append('t', makeItems(1), { expectedSeq: 0 })

    server.signal('SIGSTOP')
    cleanups.push(() => server.signal('SIGCONT'))
    const batch = makeItems(3)
    const hung = await timed(() => store.append('t', batch, { expectedSeq: 1 }))
    expectTimeout(hung.error, 'append')
    expect(hung.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS)
    const state = await timed(() => store.setState('t', { mode: 'x' }))
    expectTimeout(state.error, 'setState')

    server.signal('SIGCONT')
    // The append was on the wire: it lands when the server wakes up. The retry is recognised by its ids.
    const retried = await store.append('t', batch, { expectedSeq: 1 })
    expect(retried.map((item) => item.seq)).toEqual([2, 3, 4])
    const items = await store.read('t')
    expect(items).toHaveLength(4)
    expect(new Set(items.map((item) => item.id)).size).toBe(4)
    figures.appendsTried += 3
    figures.appendsAcknowledged += 2
    figures.readableAfterRecovery += items.length
    expect(await store.getState('t')).toEqual({ mode: 'x' })
  }, 60_000)

  it('a lease take that timed out and then runs is released behind it: the thread is not left busy until it lapses', async () => {
    const { server, dir } = await durableServer()
    const store = redisStore({ url: server.url, prefix: 'lease', timeoutMs: TIMEOUT_MS })
    cleanups.push(() => store.close().catch(() => undefined))
    await store.append('t', makeItems(1), { expectedSeq: 0 })
    const take = (owner: string) => store.acquireLease('t', { owner, ttlMs: 60_000 })

    // Hung: the take is on the wire, and runs when Redis wakes up.
    server.signal('SIGSTOP')
    cleanups.push(() => server.signal('SIGCONT'))
    const hung = await timed(() => take('hung'))
    expectTimeout(hung.error, 'acquireLease')
    expect(hung.error.details.mayHaveLanded).toBe(true)
    server.signal('SIGCONT')
    // The take runs (after its script is loaded, on a server that did not know it), then the
    // release sent behind it: the thread is free again within moments, not when the 60 s lease lapses.
    const freeWithin = async (ms: number, owner: string) => {
      const until = performance.now() + ms
      for (;;) {
        try {
          await take(owner)
          return store.releaseLease('t', { owner })
        } catch (error) {
          if (!StrataError.isInstance(error, 'STRATA_THREAD_BUSY') || performance.now() > until) throw error
          await new Promise((resolve) => setTimeout(resolve, 25))
        }
      }
    }
    expect(await freeWithin(3_000, 'next')).toBe(true)

    // Down: the take waits in the client's queue and runs once Redis is back, with its data.
    server.signal('SIGKILL')
    await server.exited()
    const down = await timed(() => take('queued'))
    expectTimeout(down.error, 'acquireLease')
    await durableServer(server.port, dir)
    // Until the client is back, reads time out too.
    for (let attempt = 0; attempt < 20; attempt++) {
      const back = await store.head('t').then(
        () => true,
        (error: unknown) => {
          expectTimeout(error, 'head')
          return false
        },
      )
      if (back) break
    }
    expect(await freeWithin(3_000, 'after')).toBe(true)
  }, 60_000)

  it('ends a paged read of the active log at the deadline of the page Redis does not answer', async () => {
    const { server } = await durableServer()
    const store = redisStore({ url: server.url, prefix: 'pages', timeoutMs: TIMEOUT_MS })
    cleanups.push(() => store.close().catch(() => undefined))
    await store.append('t', makeItems(READ_PAGE.firstItems + 2 * READ_PAGE.maxItems), { expectedSeq: 0 })
    const pages = store.readActivePages!('t')[Symbol.asyncIterator]()
    expect(((await pages.next()).value as Item[]).length).toBe(READ_PAGE.firstItems)
    server.signal('SIGSTOP')
    cleanups.push(() => server.signal('SIGCONT'))
    // The page sent ahead may have been answered before Redis stopped; the one after it was not.
    let hung = await timed(() => pages.next())
    if (hung.error === undefined) hung = await timed(() => pages.next())
    expectTimeout(hung.error, 'readActivePages')
    expect(hung.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS)
    server.signal('SIGCONT')
  }, 60_000)

  it('rejects at the deadline when Redis was never reachable, and close() does not wait for it', async () => {
    const store = redisStore({ url: `redis://127.0.0.1:${await freePort()}`, timeoutMs: TIMEOUT_MS })
    const never = await timed(() => store.append('t', makeItems(1), { expectedSeq: 0 }))
    expectTimeout(never.error, 'append')
    const started = performance.now()
    await store.close()
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + SLACK_MS)
    const closed = await store.head('t').catch((caught: unknown) => caught)
    expect(StrataError.isInstance(closed, 'STRATA_STORE_FAILED')).toBe(true)
    expect((closed as StrataError).message).toContain('closed')
  }, 30_000)

  it('takes Infinity for no deadline, and a call that settles in time is not touched', async () => {
    const { server } = await durableServer()
    const store = redisStore({ url: server.url, prefix: 'none', timeoutMs: Number.POSITIVE_INFINITY })
    cleanups.push(() => store.close())
    const [item] = await store.append('t', makeItems(1), { expectedSeq: 0 })
    expect(item?.seq).toBe(1)
    expect(await store.head('t')).toEqual({ lastSeq: 1, activeCount: 1, archivedCount: 0 })
  }, 30_000)
})
