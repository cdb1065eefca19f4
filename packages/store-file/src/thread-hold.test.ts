import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createMemory, StrataError } from '@strata-memory/core'
import { type ContendedRequestsReport, expectRequestsOneAtATime } from '@strata-memory/core/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { fileStore } from './file-store'

// The children import the built packages (`@strata-memory/store-file` → dist): build them first.
const WORKER = fileURLToPath(new URL('./testing/request-worker.mjs', import.meta.url))
const BUILT = fileURLToPath(new URL('../dist/index.js', import.meta.url))
const REQUESTS_PER_PROCESS = 20

function start(args: string[]): { child: ChildProcess; stdout: () => string; done: Promise<string> } {
  const child = spawn(process.execPath, [WORKER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
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
      code === 0 ? resolve(stdout) : reject(new Error(`worker ended with ${code ?? signal}: ${stderr}`)),
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

describe('one request at a time per thread, across processes (file store)', () => {
  let dir: string | undefined

  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  it('2 processes × 20 concurrent requests: each completes or is STRATA_THREAD_BUSY; no orphan tool call', async () => {
    if (!existsSync(BUILT)) throw new Error('Build the packages first: pnpm build.')
    dir = await mkdtemp(join(tmpdir(), 'strata-hold-'))
    const startAt = String(Date.now() + 2_500)
    const outputs = await Promise.all(
      [0, 1].map(() => start(['requests', dir!, 'contended', String(REQUESTS_PER_PROCESS), startAt]).done),
    )
    const reports = outputs.map((output) => JSON.parse(output) as ContendedRequestsReport)
    await expectRequestsOneAtATime(
      await createMemory({ store: fileStore({ dir }) }).thread('contended'),
      reports,
      REQUESTS_PER_PROCESS,
    )
    expect(await fileStore({ dir }).readLease('contended')).toBeUndefined()
  }, 60_000)

  it('a process killed (SIGKILL) while holding does not hold the thread past its lease', async () => {
    if (!existsSync(BUILT)) throw new Error('Build the packages first: pnpm build.')
    dir = await mkdtemp(join(tmpdir(), 'strata-hold-kill-'))
    const ttlMs = 3_000
    const holder = start(['hold', dir, 'killed', String(ttlMs)])
    const exited = holder.done.catch(() => undefined)
    while (!holder.stdout().includes('held')) await new Promise((resolve) => setTimeout(resolve, 10))
    const thread = await createMemory({ store: fileStore({ dir }) }).thread('killed')
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
      if (hold === undefined) await new Promise((resolve) => setTimeout(resolve, 25))
      expect(Date.now() - killedAt).toBeLessThan(ttlMs + 1_000)
    }
    await thread.append({ role: 'assistant', content: 'the next request' })
    await hold.release()
    expect((await thread.items()).map((item) => item.seq)).toEqual([1, 2])
  }, 30_000)

  it('a lease of a holder on another host lapses at its expiry, not before', async () => {
    dir = await mkdtemp(join(tmpdir(), 'strata-hold-remote-'))
    const store = fileStore({ dir })
    const thread = await createMemory({ store }).thread('remote')
    await thread.append({ role: 'user', content: 'Hello' })
    // What a process on another machine sharing the folder leaves: its pid means nothing here.
    const expiresAt = Date.now() + 400
    await writeFile(
      join(dir, 'agents', 'remote', '.lease'),
      `${JSON.stringify({ owner: 'remote-owner', pid: 1, hostname: 'another-host', expiresAt })}\n`,
    )
    expect(await store.readLease('remote')).toEqual({ expiresAt })
    const busy = await failure(() => thread.hold())
    expect(StrataError.isInstance(busy, 'STRATA_THREAD_BUSY')).toBe(true)
    expect((busy as StrataError<'STRATA_THREAD_BUSY'>).details.expiresAt).toBe(expiresAt)
    await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 20))
    await (await thread.hold()).release()
  })
})
