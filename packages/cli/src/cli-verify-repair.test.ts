import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileStore } from '@strata-memory/store-file'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFixtureThread } from './testing/fixture-thread'
import { runStrata, runStrataJson } from './testing/run-strata'

let dir: string
const store = () => ['--store', dir]
const folderOf = (threadId: string) => join(dir, 'agents', threadId)
const logOf = (threadId: string) => join(folderOf(threadId), 'raw_traces.jsonl')
/** The archive's data file (the store appends every archive to it, a part at a time). */
const archiveOf = (threadId: string) => join(folderOf(threadId), 'archive', '000001.jsonl')

/** Every file of a thread's folder (temporary files included) and its bytes. */
function filesOf(threadId: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(folderOf(threadId), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const path = join(entry.parentPath, entry.name)
        return [path, readFileSync(path, 'base64')]
      }),
  )
}

/** The ids of the items of a JSONL export, in order (the header and content lines left out). */
function exportedIds(jsonl: string): string[] {
  return jsonl
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { format?: string; id?: string })
    .filter((line) => line.format === undefined)
    .map((line) => line.id as string)
}

const seqsOf = (path: string) =>
  readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => (JSON.parse(line) as { seq: number }).seq)

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-cli-repair-'))
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe('strata verify --repair on the file store (the built binary)', { timeout: 60_000 }, () => {
  it('finds an interrupted archive, --repair finishes it, and no item is lost', async () => {
    const threadId = 'interrupted'
    const writer = fileStore({ dir })
    await writeFixtureThread(writer, threadId)
    const ids = [...(await writer.readArchive(threadId)), ...(await writer.read(threadId))]
      .sort((left, right) => left.seq - right.seq)
      .map((item) => item.id)
    // The state a crash between the archive's two steps leaves on disk: the store's archive appends to
    // the archive (committed by its index line), then writes the new active log (a temporary file
    // renamed over the old one). Killed before that rename, the archive holds the moved items beside
    // the old active log and the temporary file.
    const oldActive = readFileSync(logOf(threadId))
    const active = await writer.read(threadId)
    const moved = active.slice(0, 5).map((item) => item.seq)
    expect(await writer.archive(threadId, { seqs: moved })).toBe(moved.length)
    const newActive = readFileSync(logOf(threadId))
    writeFileSync(logOf(threadId), oldActive)
    writeFileSync(
      join(folderOf(threadId), `.raw_traces.jsonl.${process.pid}.0badcafe.tmp`),
      newActive.subarray(0, Math.floor(newActive.length / 2)),
    )
    expect(seqsOf(archiveOf(threadId))).toEqual(expect.arrayContaining(moved))
    expect(seqsOf(logOf(threadId))).toEqual(expect.arrayContaining(moved))
    const exported = await runStrata([...store(), 'export', threadId, '--archive'])
    expect(exported.code).toBe(0)
    expect(exportedIds(exported.stdout)).toEqual(ids)
    const planted = filesOf(threadId)

    const found = await runStrataJson<{
      ok: boolean
      threads: { items: number; problems: { kind: string; message: string; repair: string }[] }[]
    }>([...store(), 'verify', threadId])
    expect(found.code).toBe(1)
    expect(found.json.ok).toBe(false)
    expect(found.json.threads[0]?.items).toBe(ids.length)
    expect(found.json.threads[0]?.problems).toEqual([
      expect.objectContaining({
        kind: 'archive-pending',
        message: expect.stringMatching(
          new RegExp(
            `^${moved.length} items \\(seqs ${moved[0]}[–, ].*${moved.at(-1)}\\) are in both the active log and the archive\\.$`,
          ),
        ),
        repair: expect.stringContaining('`strata verify --repair` finishes it'),
      }),
    ])
    const text = await runStrata([...store(), 'verify', threadId])
    expect(text.code).toBe(1)
    expect(text.stdout).toMatch(/✗ interrupted: 1 problem \(\d+ items read\)/)
    expect(text.stdout).toMatch(/archive-pending: .*in both the active log and the archive/)
    expect(text.stdout).toMatch(/repair: an archive was interrupted .*strata verify --repair/)
    // verify and export only read.
    expect(filesOf(threadId)).toEqual(planted)

    const repaired = await runStrataJson<{
      ok: boolean
      repaired: { kind: string }[]
      threads: { problems: unknown[] }[]
    }>([...store(), 'verify', threadId, '--repair'])
    expect(repaired.code).toBe(0)
    expect(repaired.json.ok).toBe(true)
    expect(repaired.json.repaired.map((problem) => problem.kind)).toEqual(['archive-pending'])
    expect(repaired.json.threads[0]?.problems).toEqual([])
    // Finished: the moved items are only in the archive now.
    expect(seqsOf(logOf(threadId)).filter((seq) => moved.includes(seq))).toEqual([])
    expect(seqsOf(archiveOf(threadId))).toEqual(expect.arrayContaining(moved))

    const again = await runStrata([...store(), 'verify', threadId])
    expect(again.code).toBe(0)
    expect(again.stdout).toMatch(/✓ interrupted: \d+ items, no problem/)
    const after = await runStrata([...store(), 'export', threadId, '--archive'])
    expect(after.stdout).toBe(exported.stdout)
    expect(exportedIds(after.stdout)).toEqual(ids)
  })

  it('a torn tail: verify names it, --repair moves it aside, a second verify is clean and no item is lost', async () => {
    const threadId = 'torn-repair'
    const writer = fileStore({ dir })
    await writeFixtureThread(writer, threadId)
    const ids = [...(await writer.readArchive(threadId)), ...(await writer.read(threadId))]
      .sort((left, right) => left.seq - right.seq)
      .map((item) => item.id)
    // An append that was never acknowledged: the first line of a two-line batch, without its last line.
    const lastSeq = seqsOf(logOf(threadId)).at(-1) as number
    appendFileSync(
      logOf(threadId),
      `${JSON.stringify({ seq: lastSeq + 1, id: 'itm_torn', ts: 1, level: 'global', turn_id: 'turn_9999', type: 'message', role: 'user', content: [], batch_end: lastSeq + 2 })}\n`,
    )
    const exported = await runStrata([...store(), 'export', threadId, '--archive'])
    expect(exportedIds(exported.stdout)).toEqual(ids)

    const found = await runStrataJson<{ threads: { problems: { kind: string; message: string }[] }[] }>([
      ...store(),
      'verify',
      threadId,
    ])
    expect(found.code).toBe(1)
    expect(found.json.threads[0]?.problems).toEqual([
      expect.objectContaining({
        kind: 'torn-tail',
        message: expect.stringContaining('without its last line'),
      }),
    ])
    const repaired = await runStrata([...store(), 'verify', threadId, '--repair'])
    expect(repaired.code).toBe(0)
    expect(repaired.stdout).toMatch(
      /^Repaired: raw_traces\.jsonl ends with 1 line of a batch \(seq \d+–\d+\) without its last line\.\n/,
    )
    expect(readFileSync(`${logOf(threadId)}.corrupt`, 'utf8')).toContain('itm_torn')
    const again = await runStrata([...store(), 'verify', threadId])
    expect(again.code).toBe(0)
    const after = await runStrata([...store(), 'export', threadId, '--archive'])
    expect(after.stdout).toBe(exported.stdout)
    expect(existsSync(logOf(threadId))).toBe(true)
  })
})
