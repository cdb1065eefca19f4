import { existsSync, readdirSync, readlinkSync, statSync } from 'node:fs'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemory } from '@strata-memory/core'
import { agentTurn, countingStore, describeThreadOpen } from '@strata-memory/core/testing'
import { afterAll, describe, expect, it } from 'vitest'
import { fileStore } from './file-store'

const directories: string[] = []

afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })))
})

const temporaryDirectory = async () => {
  const directory = await mkdtemp(join(tmpdir(), 'strata-open-'))
  directories.push(directory)
  return directory
}

// Opens read no archive on real files: the digest in its slot file, usage reports without it.
describeThreadOpen('fileStore', async () => fileStore({ dir: await temporaryDirectory() }))

describe("the file store's digest slot", () => {
  it('is a file of its own beside state.json, which stays small; deleteThread removes it', async () => {
    const dir = await temporaryDirectory()
    const store = fileStore({ dir })
    const memory = createMemory({ store, compaction: { budget: { inputTokens: 3_000 } } })
    const thread = await memory.thread('slotted')
    for (let turn = 1; turn <= 40; turn++) await thread.append(agentTurn(turn))
    await thread.compact({ force: true })
    await thread.settled()
    await thread.reportUsage({ inputTokens: 2_000 })
    const folder = join(dir, 'agents', 'slotted')
    expect(await readdir(folder)).toContain('slot.log-digest.json')
    expect((await store.getState('slotted'))?.logDigest).toBeUndefined()
    expect(await store.getSlot('slotted', 'log-digest')).toMatchObject({ version: 1 })
    await memory.close()
    await store.deleteThread('slotted')
    expect(await store.getSlot('slotted', 'log-digest')).toBeUndefined()
    expect(await store.listThreads()).toEqual([])
  })

  it('a slot file that does not parse costs one replay, and the next write replaces it', async () => {
    const dir = await temporaryDirectory()
    const options = { compaction: { budget: { inputTokens: 3_000 } } } as const
    const thread = await createMemory({ ...options, store: fileStore({ dir }) }).thread('torn')
    for (let turn = 1; turn <= 40; turn++) await thread.append(agentTurn(turn))
    await thread.compact({ force: true })
    await thread.settled()
    await writeFile(join(dir, 'agents', 'torn', 'slot.log-digest.json'), '{"version":1,"thr')
    const first = countingStore(fileStore({ dir }))
    const reopened = await createMemory({ ...options, store: first.store }).thread('torn')
    expect(first.reads.archivedItems).toBe((await first.store.head('torn')).archivedCount)
    await reopened.append({ role: 'user', content: 'next', id: 'after-torn' })
    expect(first.writes.setSlot).toBe(1)
    const second = countingStore(fileStore({ dir }))
    await createMemory({ ...options, store: second.store }).thread('torn')
    expect(second.reads.readArchive).toBe(0)
  })
})

describe("a cold file store's active log, a page at a time", () => {
  const text = 'x'.repeat(1_000)
  const items = (count: number, from: number) =>
    Array.from({ length: count }, (_, index) => ({
      id: `item-${from + index}`,
      ts: 1,
      level: 'global',
      turnId: 'turn_0001',
      type: 'message' as const,
      role: 'user' as const,
      content: [{ type: 'text' as const, text }],
    }))
  const paged = async (store: ReturnType<typeof fileStore>, threadId: string) => {
    const pages: number[] = []
    const seqs: number[] = []
    for await (const page of store.readActivePages!(threadId)) {
      pages.push(page.length)
      for (const item of page) seqs.push(item.seq)
    }
    return { pages, seqs }
  }

  it('streams a log the store never read, a page of about 64 KiB of lines at a time, as read gives it', async () => {
    const dir = await temporaryDirectory()
    const writer = fileStore({ dir })
    await writer.append('t', items(6_000, 0), { expectedSeq: 0 })
    await writer.archive('t', { seqs: [5, 6, 3_000] })
    const { pages, seqs } = await paged(fileStore({ dir }), 't')
    // About 6 MiB of lines (two 4 MiB pieces read), each piece parsed and given a 64 KiB page at a time.
    const lineBytes = statSync(join(dir, 'agents', 't', 'raw_traces.jsonl')).size / 5_997
    const pageItems = Math.ceil((64 * 1024) / lineBytes)
    expect(pages.length).toBeGreaterThanOrEqual(Math.floor(5_997 / pageItems))
    for (const size of pages) expect(size).toBeLessThanOrEqual(pageItems)
    expect(seqs).toEqual((await fileStore({ dir }).read('t')).map((item) => item.seq))
    // Cached now: the same again, from the cache.
    const cached = fileStore({ dir })
    await cached.head('t')
    expect((await paged(cached, 't')).seqs).toEqual(seqs)
  })

  it('gives the committed lines of a log with a torn last line, which the read mends', async () => {
    const dir = await temporaryDirectory()
    await fileStore({ dir }).append('t', items(50, 0), { expectedSeq: 0 })
    const [folder] = await readdir(join(dir, 'agents'))
    await writeFile(join(dir, 'agents', folder!, 'raw_traces.jsonl'), '{"seq":51,"id":"torn', { flag: 'a' })
    const store = fileStore({ dir })
    const { seqs } = await paged(store, 't')
    expect(seqs).toEqual(Array.from({ length: 50 }, (_, index) => index + 1))
    expect(await store.head('t')).toMatchObject({ lastSeq: 50, activeCount: 50 })
  })
  it('says about how many items a cold log holds with its first page, and exactly from the cache', async () => {
    const dir = await temporaryDirectory()
    await fileStore({ dir }).append('t', items(3_000, 0), { expectedSeq: 0 })
    for (const warm of [false, true]) {
      const store = fileStore({ dir })
      if (warm) await store.head('t')
      const counts: { count: number; pagesBefore: number }[] = []
      let pagesGiven = 0
      for await (const _page of store.readActivePages!('t', {
        onCount: (count) => counts.push({ count, pagesBefore: pagesGiven }),
      }))
        pagesGiven++
      expect(counts).toHaveLength(1)
      expect(counts[0]!.pagesBefore).toBe(0)
      if (warm) expect(counts[0]!.count).toBe(3_000)
      else expect(Math.abs(counts[0]!.count - 3_000)).toBeLessThan(3_000 * 0.05)
    }
  })

  it('lets a load that the reader left after its first page finish, and reads whole afterwards', async () => {
    const dir = await temporaryDirectory()
    // Appends of 50 (a batch commits whole, so a page holds at least one), the writer's log closed.
    const writer = fileStore({ dir })
    for (let from = 0; from < 3_000; from += 50)
      await writer.append('t', items(50, from), { expectedSeq: from })
    await writer.close!()
    const store = fileStore({ dir })
    for await (const page of store.readActivePages!('t')) {
      expect(page.length).toBeGreaterThan(0)
      break
    }
    // The load the reader left went on to its end and closed the log (a load waiting on a reader that
    // left would hold it open for good).
    if (existsSync('/proc/self/fd')) {
      const log = join(dir, 'agents', 't', 'raw_traces.jsonl')
      const open = () =>
        readdirSync('/proc/self/fd').filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`) === log
          } catch {
            return false
          }
        })
      for (let turn = 0; turn < 50 && open().length > 0; turn++)
        await new Promise((resolve) => setTimeout(resolve, 10))
      expect(open()).toEqual([])
    }
    expect((await store.read('t')).map((item) => item.seq)).toEqual(
      Array.from({ length: 3_000 }, (_, index) => index + 1),
    )
    expect((await paged(store, 't')).seqs).toHaveLength(3_000)
  })
})
