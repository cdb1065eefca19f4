import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { closeSync, mkdirSync, openSync } from 'node:fs'
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Item, StrataError } from '@strata-memory/core'
import { makeItems } from '@strata-memory/core/testing'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { fileStore } from './file-store'

/*
 * Issue 31: every call has a deadline. A call blocked on the thread's lock, held by another live
 * process, or on a file-system call that hangs, rejects with STRATA_STORE_FAILED, reason 'timeout'.
 */

const TIMEOUT_MS = 300
/** Generous: the machine running the tests may be busy. Only "not much later than the deadline" is checked. */
const SLACK_MS = 4_000

const figures = { appendsTried: 0, appendsAcknowledged: 0, readableAfterRecovery: 0, longestWaitMs: 0 }
afterAll(() => {
  console.info(
    `fault run (file store, timeoutMs ${TIMEOUT_MS}): appends tried ${figures.appendsTried}, acknowledged ${figures.appendsAcknowledged}, items readable after recovery ${figures.readableAfterRecovery}, longest wait with the store blocked ${Math.round(figures.longestWaitMs)} ms`,
  )
})

let dir: string
const cleanups: (() => Promise<unknown> | unknown)[] = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-deadline-'))
})
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await rm(dir, { recursive: true, force: true })
})

/** A live process of this host that holds the thread's lock file (as another store would). */
async function holdLock(threadId: string): Promise<{ child: ChildProcess; release: () => Promise<void> }> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
  cleanups.push(() => child.kill('SIGKILL'))
  const folder = join(dir, 'agents', threadId)
  mkdirSync(folder, { recursive: true })
  const lock = join(folder, '.lock')
  const holder = { pid: child.pid, hostname: hostname(), ts: Date.now(), token: randomUUID() }
  await writeFile(lock, `${JSON.stringify(holder)}\n`, { flag: 'wx' })
  return { child, release: () => unlink(lock) }
}

async function timed(
  call: () => Promise<unknown>,
): Promise<{ error: StrataError<'STRATA_STORE_FAILED'>; ms: number }> {
  const started = performance.now()
  const error = await call().then(
    () => undefined,
    (caught: unknown) => caught,
  )
  const ms = performance.now() - started
  figures.longestWaitMs = Math.max(figures.longestWaitMs, ms)
  expect(StrataError.isInstance(error, 'STRATA_STORE_FAILED'), String(error)).toBe(true)
  const failed = error as StrataError<'STRATA_STORE_FAILED'>
  expect(failed.details.reason).toBe('timeout')
  expect(failed.details.timeoutMs).toBe(TIMEOUT_MS)
  expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS)
  return { error: failed, ms }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('fileStore timeoutMs', () => {
  it('rejects an append waiting for a lock another process holds, writes nothing, and the retry lands once', async () => {
    const store = fileStore({ dir, timeoutMs: TIMEOUT_MS, lockTimeoutMs: 60_000, staleLockMs: 60_000 })
    const first = makeItems(2)
    await store.append('t', first, { expectedSeq: 0 })
    const lock = await holdLock('t')

    const batch = makeItems(3)
    const { error } = await timed(() => store.append('t', batch, { expectedSeq: 2 }))
    expect(error.details).toMatchObject({ command: 'append', threadId: 't', mayHaveLanded: false })
    expect(error.message).toContain('Nothing was written, and nothing will be')
    await timed(() => store.setState('t', { mode: 'x' }))

    // The lock is freed: the timed-out append gave up its wait and never lands.
    await lock.release()
    await sleep(200)
    expect((await store.head('t')).lastSeq).toBe(2)
    expect(await store.getState('t')).toBeUndefined()
    const stored = await store.append('t', batch, { expectedSeq: 2 })
    expect(stored.map((item) => item.seq)).toEqual([3, 4, 5])
    const items = await store.read('t')
    expect(items.map((item) => item.id)).toEqual([...first, ...batch].map((item) => item.id))
    figures.appendsTried += 3
    figures.appendsAcknowledged += 2
    figures.readableAfterRecovery += items.length
  }, 30_000)

  it('recognises the very same append sent again, also from another store, and refuses a different one', async () => {
    const store = fileStore({ dir })
    const batch = makeItems(3)
    const stored = await store.append('t', batch, { expectedSeq: 0 })
    expect(await store.append('t', batch, { expectedSeq: 0 })).toStrictEqual(stored)
    expect(await fileStore({ dir }).append('t', batch, { expectedSeq: 0 })).toStrictEqual(stored)
    const changed = [{ ...batch[0]!, meta: { other: true } }, ...batch.slice(1)]
    const refused = await store.append('t', changed, { expectedSeq: 0 }).catch((caught: unknown) => caught)
    expect(StrataError.isInstance(refused, 'STRATA_SEQ_CONFLICT')).toBe(true)
    expect((await store.read('t')).map((item: Item) => item.id)).toEqual(batch.map((item) => item.id))
  })

  it('rejects a read blocked on a file-system call that hangs (the log is a FIFO nobody writes)', async () => {
    const store = fileStore({ dir, timeoutMs: TIMEOUT_MS })
    const folder = join(dir, 'agents', 'hung')
    mkdirSync(folder, { recursive: true })
    const fifo = join(folder, 'raw_traces.jsonl')
    execFileSync('mkfifo', [fifo])
    const { error } = await timed(() => store.head('hung'))
    expect(error.details).toMatchObject({ command: 'head', mayHaveLanded: false })
    // Unblock the hung open (a writer that closes at once), so no thread of the pool stays stuck.
    closeSync(openSync(fifo, 'w'))
  }, 30_000)
})
