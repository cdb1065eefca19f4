import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { appendFile, mkdir, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createMemory,
  type Item,
  StrataError,
  type StrataErrorCode,
  type StrataStore,
} from '@strata-memory/core'
import {
  describeStoreConformance,
  makeEveryItemType,
  makeFactItem,
  makeItems,
  makeMessageItem,
  makeSummaryItem,
  withSeqs,
} from '@strata-memory/core/testing'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fileStore } from './file-store'
import type { FileStoreEvent } from './file-store-options'

const directories: string[] = []

async function temporaryDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'strata-file-store-'))
  directories.push(directory)
  return directory
}

afterEach(async () => {
  await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })))
})

/** The folder of each store the conformance suite made, for its audit cases' damage. */
const folders = new Map<StrataStore, string>()
const activeLog = (store: StrataStore, threadId: string) =>
  join(folders.get(store)!, 'agents', threadId, 'raw_traces.jsonl')

describeStoreConformance(
  'fileStore',
  async () => {
    const dir = await temporaryDirectory()
    const store = fileStore({ dir })
    folders.set(store, dir)
    return store
  },
  {
    audit: true,
    slots: true,
    // Another process's store on the same folder.
    twin: (store) => fileStore({ dir: folders.get(store)! }),
    // What a crash or a broken disk leaves in the files, made as it would be.
    auditDamage: {
      tornTail: (store, threadId) => appendFile(activeLog(store, threadId), '{"seq":99,"id":"torn","ty'),
      dropItem: async (store, threadId, seq) => {
        const lines = await linesOf(activeLog(store, threadId))
        const kept = lines.filter((line) => (JSON.parse(line) as { seq: number }).seq !== seq)
        await writeFile(activeLog(store, threadId), `${kept.join('\n')}\n`)
      },
      // The archive commits before the active log is rewritten: a crash in between leaves both.
      interruptArchive: async (store, threadId, seqs) => {
        const before = await readFile(activeLog(store, threadId))
        await store.archive(threadId, { seqs })
        await writeFile(activeLog(store, threadId), before)
      },
    },
    cleanup: async (store) => {
      folders.delete(store)
    },
  },
)

async function expectCode(promise: Promise<unknown>, code: StrataErrorCode): Promise<StrataError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (!StrataError.isInstance(error, code)) throw new Error(`expected ${code}, got ${String(error)}`)
  return error
}

const linesOf = async (path: string) =>
  (await readFile(path, 'utf8')).split('\n').filter((line) => line !== '')

describe('fileStore on disk', () => {
  let dir: string
  let events: FileStoreEvent[]
  let store: StrataStore
  const threadPath = (threadId: string, ...names: string[]) => join(dir, 'agents', threadId, ...names)

  beforeEach(async () => {
    dir = await temporaryDirectory()
    events = []
    store = fileStore({ dir, onEvent: (event) => events.push(event) })
  })

  it('writes the documented layout with grep-able lines', async () => {
    const items = makeEveryItemType()
    await store.append('user-42.chat-7', items, { expectedSeq: 0 })
    await store.archive('user-42.chat-7', { seqs: [1] })
    await store.setState('user-42.chat-7', { level: 'task' })
    await store.putContent('user-42.chat-7', {
      id: 'mem_A.1',
      type: 'text',
      tags: [],
      ts: 1,
      size: 2,
      data: 'hi',
    })
    const names = (await readdir(threadPath('user-42.chat-7'))).sort()
    expect(names).toEqual(expect.arrayContaining(['archive', 'content', 'raw_traces.jsonl', 'state.json']))
    expect((await readdir(threadPath('user-42.chat-7', 'archive'))).sort()).toEqual([
      '000001.jsonl',
      'index.jsonl',
    ])
    expect(
      names.filter(
        (name) => !name.startsWith('raw_') && !['archive', 'content', 'state.json'].includes(name),
      ),
    ).toEqual(['episodic.jsonl', 'semantic.jsonl', 'summaries'].filter((name) => names.includes(name)))
    expect((await readdir(threadPath('user-42.chat-7', 'content'))).sort()).toEqual([
      '.catalog.jsonl',
      'mem_%41%2E1.json',
    ])
    const lines = [
      ...(await linesOf(threadPath('user-42.chat-7', 'archive', '000001.jsonl'))),
      ...(await linesOf(threadPath('user-42.chat-7', 'raw_traces.jsonl'))),
    ]
    expect(lines).toHaveLength(items.length)
    lines.forEach((line, index) => {
      const record = JSON.parse(line) as Record<string, unknown>
      for (const field of ['id', 'ts', 'turn_id', 'seq', 'type', 'content'])
        expect(record).toHaveProperty(field)
      expect(record.seq).toBe(index + 1)
      expect(record.turn_id).toBe(items[index]!.turnId)
      expect(record).not.toHaveProperty('turnId')
    })
    expect(
      JSON.parse((await readFile(threadPath('user-42.chat-7', 'state.json'), 'utf8')) as string),
    ).toEqual({
      level: 'task',
    })
    // Each line is findable with grep.
    const grep = spawnSync('grep', [
      '-c',
      '"turn_id":"turn_',
      threadPath('user-42.chat-7', 'raw_traces.jsonl'),
    ])
    expect(Number(grep.stdout.toString().trim())).toBe(items.length - 1)
  })

  it('round-trips items whose keys collide with the line format, in the wrapped form', async () => {
    const odd = [
      { ...makeFactItem(), content: 'own content', turn_id: 'own' },
      { ...makeMessageItem(), item: { nested: true }, batch_end: 3 },
    ] as never[]
    const stored = await store.append('odd', odd, { expectedSeq: 0 })
    expect(await store.read('odd')).toStrictEqual(stored)
    expect(JSON.stringify(await fileStore({ dir }).read('odd'))).toBe(JSON.stringify(withSeqs(odd)))
  })

  it('writes one line per item in one append, each batch marked so a partial batch is recognised', async () => {
    await store.append('batch', makeItems(3), { expectedSeq: 0 })
    await store.append('batch', makeItems(1), { expectedSeq: 3 })
    const records = (await linesOf(threadPath('batch', 'raw_traces.jsonl'))).map((line) => JSON.parse(line))
    expect(records.map((record) => record.batch_end)).toEqual([3, 3, 3, undefined])
    expect((await store.read('batch')).every((item) => !('batch_end' in item))).toBe(true)
  })

  it('mirrors episodic summaries, facts and short-term summaries into readable files', async () => {
    const ts = Date.UTC(2025, 0, 2, 3, 4, 5)
    await store.append(
      'mirrored',
      [
        makeSummaryItem({ tier: 'episodic', text: 'Episode one' }),
        makeFactItem({ text: 'The sky is blue' }),
        makeSummaryItem({ tier: 'short-term', text: 'Recently: a lot', ts }),
        makeMessageItem(),
      ],
      { expectedSeq: 0 },
    )
    const episodic = (await linesOf(threadPath('mirrored', 'episodic.jsonl'))).map((line) => JSON.parse(line))
    expect(episodic).toMatchObject([{ seq: 1, type: 'summary', tier: 'episodic', content: 'Episode one' }])
    const semantic = (await linesOf(threadPath('mirrored', 'semantic.jsonl'))).map((line) => JSON.parse(line))
    expect(semantic).toMatchObject([{ seq: 2, type: 'fact', content: 'The sky is blue' }])
    const summary = await readFile(threadPath('mirrored', 'summaries', 'recent-20250102-030405.md'), 'utf8')
    expect(summary).toContain('Recently: a lot')
    expect(summary).toContain('seq 3')
  })

  it('honours STRATA_MEMORY_DIR, and the dir option over it', async () => {
    vi.stubEnv('STRATA_MEMORY_DIR', dir)
    try {
      await fileStore().append('from-env', makeItems(1), { expectedSeq: 0 })
      expect(existsSync(threadPath('from-env', 'raw_traces.jsonl'))).toBe(true)
      const other = await temporaryDirectory()
      await fileStore({ dir: other }).append('from-option', makeItems(1), { expectedSeq: 0 })
      expect(existsSync(join(other, 'agents', 'from-option', 'raw_traces.jsonl'))).toBe(true)
      expect(existsSync(threadPath('from-option'))).toBe(false)
    } finally {
      vi.unstubAllEnvs()
    }
  })

  it('moves a torn last line to .corrupt, reports it, and keeps appending after the last good line', async () => {
    const items = await store.append('torn', makeItems(2), { expectedSeq: 0 })
    const log = threadPath('torn', 'raw_traces.jsonl')
    const good = await readFile(log, 'utf8')
    await appendFile(log, '{"seq":3,"id":"half-writ')
    const reader = fileStore({ dir, onEvent: (event) => events.push(event) })
    expect(await reader.read('torn')).toStrictEqual(items)
    expect(await readFile(log, 'utf8')).toBe(good)
    const corrupt = (await linesOf(`${log}.corrupt`)).map((line) => JSON.parse(line))
    expect(corrupt).toMatchObject([
      { file: 'raw_traces.jsonl', reason: 'torn-line', text: '{"seq":3,"id":"half-writ' },
    ])
    expect(Buffer.from(corrupt[0].base64, 'base64').toString()).toBe('{"seq":3,"id":"half-writ')
    expect(typeof corrupt[0].ts).toBe('string')
    expect(events).toMatchObject([
      { type: 'torn-tail-moved', threadId: 'torn', reason: 'torn-line', length: 24 },
    ])
    const [next] = await reader.append('torn', makeItems(1), { expectedSeq: 2 })
    expect(next?.seq).toBe(3)
  })

  it('treats an unparseable last line and an incomplete batch as torn, never as data', async () => {
    await store.append('tail', makeItems(1), { expectedSeq: 0 })
    const log = threadPath('tail', 'raw_traces.jsonl')
    await appendFile(log, '\u0000\u0000garbage\n')
    const reader = fileStore({ dir, onEvent: (event) => events.push(event) })
    expect(await reader.head('tail')).toEqual({ lastSeq: 1, activeCount: 1, archivedCount: 0 })
    // Two lines of a three-item batch reached the disk, the third did not.
    const [line2, line3] = withSeqs(makeItems(2), 1).map((item) => JSON.stringify({ ...item, batch_end: 4 }))
    await appendFile(log, `${line2}\n${line3}\n`)
    expect(await reader.head('tail')).toEqual({ lastSeq: 1, activeCount: 1, archivedCount: 0 })
    expect(events.map((event) => event.type === 'torn-tail-moved' && event.reason)).toEqual([
      'unparseable-last-line',
      'incomplete-batch',
    ])
    expect(await linesOf(`${log}.corrupt`)).toHaveLength(2)
  })

  it('rejects a corrupt middle line with STRATA_CORRUPT_LOG naming file and line, changing nothing', async () => {
    await store.append('corrupt', makeItems(3), { expectedSeq: 0 })
    const log = threadPath('corrupt', 'raw_traces.jsonl')
    const lines = await linesOf(log)
    lines[1] = '{"seq":2, this is not json'
    const damaged = `${lines.join('\n')}\n`
    await writeFile(log, damaged)
    const reader = fileStore({ dir, onEvent: (event) => events.push(event) })
    for (const call of [
      () => reader.read('corrupt'),
      () => reader.head('corrupt'),
      () => reader.append('corrupt', makeItems(1), { expectedSeq: 3 }),
      () => reader.archive('corrupt', { seqs: [1] }),
    ]) {
      const error = await expectCode(call(), 'STRATA_CORRUPT_LOG')
      expect(error.details).toMatchObject({ file: log, line: 2 })
      expect(error.message).toContain(`${log}, line 2`)
    }
    expect(await readFile(log, 'utf8')).toBe(damaged)
    expect(existsSync(`${log}.corrupt`)).toBe(false)
    expect(existsSync(threadPath('corrupt', 'raw_traces_archive.jsonl'))).toBe(false)
    expect(events).toEqual([])
  })

  it('rejects out-of-order seqs as corruption', async () => {
    await store.append('order', makeItems(3), { expectedSeq: 0 })
    const log = threadPath('order', 'raw_traces.jsonl')
    const lines = await linesOf(log)
    await writeFile(log, `${[lines[1], lines[0], lines[2]].join('\n')}\n`)
    const error = await expectCode(fileStore({ dir }).read('order'), 'STRATA_CORRUPT_LOG')
    expect(error.details).toMatchObject({ line: 2 })
  })

  it('finishes an archive interrupted between its two renames: items in both files count as archived', async () => {
    const items: Item[] = []
    for (const item of makeItems(4)) {
      items.push(...(await store.append('half-archived', [item], { expectedSeq: items.length })))
    }
    const log = threadPath('half-archived', 'raw_traces.jsonl')
    const lines = await linesOf(log)
    // The archive file was replaced, the active log not yet.
    await writeFile(
      threadPath('half-archived', 'raw_traces_archive.jsonl'),
      `${lines.slice(0, 2).join('\n')}\n`,
    )
    const reader = fileStore({ dir, onEvent: (event) => events.push(event) })
    expect(await reader.read('half-archived')).toStrictEqual(items.slice(2))
    expect(await reader.readArchive('half-archived')).toStrictEqual(items.slice(0, 2))
    expect(await reader.head('half-archived')).toEqual({ lastSeq: 4, activeCount: 2, archivedCount: 2 })
    await reader.append('half-archived', makeItems(1), { expectedSeq: 4 })
    expect(events).toMatchObject([{ type: 'archive-repaired', seqs: [1, 2] }])
    expect((await linesOf(log)).map((line) => JSON.parse(line).seq)).toEqual([3, 4, 5])
  })

  it('archives by appending to the archive, never rewriting it; the active log is replaced by rename', async () => {
    await store.append('renamed', makeItems(3), { expectedSeq: 0 })
    await store.archive('renamed', { seqs: [1] })
    const active = threadPath('renamed', 'raw_traces.jsonl')
    const archived = ['archive/000001.jsonl', 'archive/index.jsonl'].map((name) =>
      threadPath('renamed', name),
    )
    const before = await Promise.all(archived.map((path) => readFile(path, 'utf8')))
    const inodes = await Promise.all(archived.map(async (path) => (await stat(path)).ino))
    const activeInode = (await stat(active)).ino
    // A handle opened before the archive keeps the active log it opened: a rename leaves it untouched.
    const handle = await open(active, 'r')
    try {
      const opened = await handle.readFile('utf8')
      expect(await store.archive('renamed', { seqs: [2] })).toBe(1)
      const { bytesRead, buffer } = await handle.read({ position: 0, buffer: Buffer.alloc(1 << 16) })
      expect(buffer.subarray(0, bytesRead).toString('utf8')).toBe(opened)
    } finally {
      await handle.close()
    }
    expect((await stat(active)).ino).not.toBe(activeInode)
    for (const [index, path] of archived.entries()) {
      // The same file, grown: what it held is still its beginning.
      expect((await stat(path)).ino).toBe(inodes[index])
      const after = await readFile(path, 'utf8')
      expect(after.startsWith(before[index]!)).toBe(true)
      expect(after.length).toBeGreaterThan(before[index]!.length)
    }
    expect((await linesOf(active)).map((line) => JSON.parse(line).seq)).toEqual([3])
    expect((await linesOf(archived[0]!)).map((line) => JSON.parse(line).seq)).toEqual([1, 2])
    expect((await linesOf(archived[1]!)).map((line) => JSON.parse(line))).toMatchObject([
      { file: 'archive/000001.jsonl', from: 1, to: 1, count: 1, rest: 0 },
      { file: 'archive/000001.jsonl', from: 2, to: 2, count: 1, rest: 0 },
    ])
    expect((await readdir(threadPath('renamed'))).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  it('recovers a stale lock left by a dead process', async () => {
    await store.append('locked', makeItems(1), { expectedSeq: 0 })
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'])
    const pid = Number(dead.stdout.toString())
    const { hostname } = await import('node:os')
    const lockFile = threadPath('locked', '.lock')
    await writeFile(lockFile, JSON.stringify({ pid, hostname: hostname(), ts: Date.now(), token: 'gone' }))
    const writer = fileStore({ dir, lockTimeoutMs: 2_000, onEvent: (event) => events.push(event) })
    const [item] = await writer.append('locked', makeItems(1), { expectedSeq: 1 })
    expect(item?.seq).toBe(2)
    expect(events).toMatchObject([{ type: 'lock-recovered', reason: 'holder-dead', holder: { pid } }])
    expect(existsSync(lockFile)).toBe(false)
  })

  it('recovers an expired lock of another host, and times out on a live one with a typed error', async () => {
    const lockFile = threadPath('busy', '.lock')
    await mkdir(threadPath('busy'), { recursive: true })
    const holder = { pid: process.ppid, hostname: 'elsewhere', token: 'x' }
    await writeFile(lockFile, JSON.stringify({ ...holder, ts: Date.now() }))
    const writer = fileStore({ dir, lockTimeoutMs: 200, staleLockMs: 60_000, onEvent: (e) => events.push(e) })
    const error = await expectCode(
      writer.append('busy', makeItems(1), { expectedSeq: 0 }),
      'STRATA_STORE_FAILED',
    )
    expect(error.message).toMatch(/lock/)
    await writeFile(lockFile, JSON.stringify({ ...holder, ts: Date.now() - 120_000 }))
    await writer.append('busy', makeItems(1), { expectedSeq: 0 })
    expect(events).toMatchObject([{ type: 'lock-recovered', reason: 'lock-expired' }])
  })

  it('rejects traversal and brace thread ids before touching the disk', async () => {
    for (const threadId of ['../escape', '..', 'a/../../b', '{user}', 'x}', '%2e%2e', '.hidden', 'a\\b']) {
      await expectCode(store.append(threadId, makeItems(1), { expectedSeq: 0 }), 'STRATA_INVALID_THREAD_ID')
      await expectCode(store.setState(threadId, { a: 1 }), 'STRATA_INVALID_THREAD_ID')
      await expectCode(store.deleteThread(threadId), 'STRATA_INVALID_THREAD_ID')
      await expectCode(store.read(threadId), 'STRATA_INVALID_THREAD_ID')
    }
    expect(await readdir(dir)).toEqual([])
  })

  it('rejects invalid options', () => {
    expect(() => fileStore({ dir: '' })).toThrow(/dir/)
    expect(() => fileStore({ fsync: 'yes' as never })).toThrow(/fsync/)
    expect(() => fileStore({ lockTimeoutMs: -1 })).toThrow(/lockTimeoutMs/)
    // A misspelt option is refused, not ignored (the store would run without it).
    expect(() => fileStore({ dir, fsynk: false } as never)).toThrow(
      "fileStore(): unknown option 'fsynk' (did you mean 'fsync'?). It takes dir, fsync, lockTimeoutMs, timeoutMs, staleLockMs, mirrors, onEvent.",
    )
    expect(() => fileStore({ dir, timeoutMS: 5 } as never)).toThrow(/did you mean 'timeoutMs'/)
  })

  it('sees what another store instance on the same folder wrote, including after an archive', async () => {
    const other = fileStore({ dir })
    await store.append('shared', makeItems(2), { expectedSeq: 0 })
    expect(await other.head('shared')).toEqual({ lastSeq: 2, activeCount: 2, archivedCount: 0 })
    await other.append('shared', makeItems(2), { expectedSeq: 2 })
    await other.archive('shared', { seqs: [1, 3] })
    expect((await store.read('shared')).map((item) => item.seq)).toEqual([2, 4])
    expect((await store.readArchive('shared')).map((item) => item.seq)).toEqual([1, 3])
    await expectCode(store.append('shared', makeItems(1), { expectedSeq: 2 }), 'STRATA_SEQ_CONFLICT')
  })
})

describe('the file store in a thread', () => {
  it('reports its name and flags in thread.status()', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-file-status-'))
    try {
      const thread = await createMemory({ store: fileStore({ dir }) }).thread('status')
      expect((await thread.status()).store).toEqual({ name: 'file', persistent: true, shared: true })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('a cold read parses each line once', () => {
  it('hands out fresh items on every read, even those built from the records its load parsed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-file-cold-'))
    try {
      const writer = fileStore({ dir })
      await writer.append('cold', makeItems(3), { expectedSeq: 0 })
      await writer.close?.()
      const store = fileStore({ dir })
      const first = await store.read('cold')
      ;(first[0] as { id: string }).id = 'changed'
      const second = await store.read('cold')
      expect(second[0]!.id).not.toBe('changed')
      expect(second[1]).not.toBe(first[1])
      expect(second).toStrictEqual(await fileStore({ dir }).read('cold'))
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
