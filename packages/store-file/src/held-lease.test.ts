import { appendFileSync, existsSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { StrataError, type UnsequencedItem } from '@strata-memory/core'
import { afterEach, describe, expect, it } from 'vitest'
import { fileStore } from './file-store'
import { runWorker } from './testing/run-worker'

// The child imports the built package (`@strata-memory/store-file` → dist): build it first.
const WORKER = fileURLToPath(new URL('./testing/append-worker.mjs', import.meta.url))
const BUILT = fileURLToPath(new URL('../dist/index.js', import.meta.url))

const item = (text: string): UnsequencedItem => ({
  id: text,
  ts: 1,
  level: 'global',
  turnId: 'turn_0001',
  type: 'message',
  role: 'user',
  content: [{ type: 'text', text }],
})

const texts = (items: readonly object[]) =>
  items.map((entry) => (entry as { content: { text: string }[] }).content[0]!.text)

/** A line as the store writes it, appended behind the store's back (no lock, no lease check). */
const lineOf = (seq: number, text: string) => `${JSON.stringify({ ...item(text), seq })}\n`

describe('a lease this store holds stands for the stats of the thread files', () => {
  let dir: string | undefined

  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  it('is used: while held, a line added behind the lease is not looked for; the next lease sees it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'strata-held-'))
    const store = fileStore({ dir, fsync: false })
    await store.append('t', [item('a')], { expectedSeq: 0 })
    const lease = { owner: 'request-1', ttlMs: 30_000 }
    await store.acquireLease('t', lease)
    expect((await store.head('t')).lastSeq).toBe(1)
    // Breaks the file store's rules on purpose: only this shows that the held lease stands for the stats.
    appendFileSync(join(dir, 'agents', 't', 'raw_traces.jsonl'), lineOf(2, 'behind'))
    expect((await store.head('t')).lastSeq).toBe(1)
    await store.releaseLease('t', { owner: 'request-1' })
    expect((await store.head('t')).lastSeq).toBe(2)
    await store.acquireLease('t', { owner: 'request-2', ttlMs: 30_000 })
    expect(texts(await store.read('t'))).toEqual(['a', 'behind'])
  })

  it('a cache that found its lines stale and forgot them is read whole again, lease or not', async () => {
    dir = await mkdtemp(join(tmpdir(), 'strata-held-'))
    const store = fileStore({ dir, fsync: false })
    await store.append('t', [item('a')], { expectedSeq: 0 })
    await store.acquireLease('t', { owner: 'one', ttlMs: 30_000 })
    await store.append('t', [item('b')], { expectedSeq: 1, lease: 'one' })
    // Breaks the rules on purpose: another log renamed over this one while the lease is held. Reading
    // the appended line finds the file replaced; the cache forgets it, and may not be trusted as empty.
    const path = join(dir, 'agents', 't', 'raw_traces.jsonl')
    writeFileSync(`${path}.new`, lineOf(1, 'x') + lineOf(2, 'y') + lineOf(3, 'z'))
    renameSync(`${path}.new`, path)
    expect(texts(await store.read('t'))).toEqual(['x', 'y', 'z'])
  })

  it("another process's append between two leases is seen by the next one, and refused during one", async () => {
    if (!existsSync(BUILT)) throw new Error('Build the packages first: pnpm build.')
    dir = await mkdtemp(join(tmpdir(), 'strata-held-'))
    const store = fileStore({ dir })
    await store.append('t', [item('a')], { expectedSeq: 0 })
    await store.acquireLease('t', { owner: 'one', ttlMs: 30_000 })
    expect((await store.head('t')).lastSeq).toBe(1)
    const refused = await runWorker(WORKER, [dir, 't', 'other', '1']).then(
      () => undefined,
      (error: Error) => error.message,
    )
    expect(refused).toContain('STRATA_THREAD_BUSY')
    await store.releaseLease('t', { owner: 'one' })
    await runWorker(WORKER, [dir, 't', 'other', '2'])
    await store.acquireLease('t', { owner: 'two', ttlMs: 30_000 })
    expect((await store.head('t')).lastSeq).toBe(3)
    await store.append('t', [item('b')], { expectedSeq: 3, lease: 'two' })
    expect(texts(await store.read('t'))).toEqual(['a', 'other 0', 'other 1', 'b'])
  })

  it("a write under the holder's owner token from another store is seen by the holder", async () => {
    dir = await mkdtemp(join(tmpdir(), 'strata-held-'))
    const holder = fileStore({ dir, fsync: false })
    const other = fileStore({ dir, fsync: false })
    await holder.acquireLease('t', { owner: 'shared', ttlMs: 30_000 })
    await holder.append('t', [item('a')], { expectedSeq: 0, lease: 'shared' })
    expect((await holder.head('t')).lastSeq).toBe(1)
    await other.append('t', [item('b')], { expectedSeq: 1, lease: 'shared' })
    await other.setState('t', { by: 'other' }, { lease: 'shared' })
    expect(texts(await holder.read('t'))).toEqual(['a', 'b'])
    expect(await holder.getState('t')).toEqual({ by: 'other' })
    await holder.append('t', [item('c')], { expectedSeq: 2, lease: 'shared' })
    expect(texts(await other.read('t'))).toEqual(['a', 'b', 'c'])
  })

  it('a thread deleted by another store while held is seen as gone; a stale append is refused', async () => {
    dir = await mkdtemp(join(tmpdir(), 'strata-held-'))
    const holder = fileStore({ dir, fsync: false })
    const other = fileStore({ dir, fsync: false })
    await holder.append('t', [item('a'), item('b')], { expectedSeq: 0 })
    await holder.acquireLease('t', { owner: 'one', ttlMs: 30_000 })
    expect((await holder.head('t')).lastSeq).toBe(2)
    await other.deleteThread('t')
    expect((await holder.head('t')).lastSeq).toBe(0)
    const error = await holder.append('t', [item('c')], { expectedSeq: 2, lease: 'one' }).catch((e) => e)
    expect(StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT')).toBe(true)
  })

  it('a lapsed lease stands for nothing: a write after it lapsed is seen', async () => {
    dir = await mkdtemp(join(tmpdir(), 'strata-held-'))
    const holder = fileStore({ dir, fsync: false })
    const other = fileStore({ dir, fsync: false })
    await holder.append('t', [item('a')], { expectedSeq: 0 })
    // Trust ends a second before the lease does: this one is never trusted, and lapses soon.
    await holder.acquireLease('t', { owner: 'short', ttlMs: 1_200 })
    expect((await holder.head('t')).lastSeq).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 1_300))
    await other.append('t', [item('b')], { expectedSeq: 1 })
    expect(texts(await holder.read('t'))).toEqual(['a', 'b'])
  })

  it('state.json: the same state is not written again; a state another store wrote is read', async () => {
    dir = await mkdtemp(join(tmpdir(), 'strata-held-'))
    const one = fileStore({ dir, fsync: false })
    const two = fileStore({ dir, fsync: false })
    const path = join(dir, 'agents', 't', 'state.json')
    await one.setState('t', { level: 'task' })
    const written = statSync(path)
    await one.setState('t', { level: 'task' })
    expect(statSync(path).ino).toBe(written.ino)
    expect(await one.getState('t')).toEqual({ level: 'task' })
    await two.setState('t', { level: 'project' })
    expect(statSync(path).ino).not.toBe(written.ino)
    expect(await one.getState('t')).toEqual({ level: 'project' })
    await one.setState('t', { level: 'task' })
    expect(await two.getState('t')).toEqual({ level: 'task' })
  })
})
