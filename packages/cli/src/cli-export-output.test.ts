import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Item, StrataStore } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FIXTURE_THREAD, writeFixtureThread } from './testing/fixture-thread'
import { runStrata } from './testing/run-strata'

let dir: string
let store: StrataStore

/** Seqs as the export's header writes them: runs of consecutive seqs. */
function ranges(seqs: number[]): { fromSeq: number; toSeq: number }[] {
  const out: { fromSeq: number; toSeq: number }[] = []
  for (const seq of seqs) {
    const last = out.at(-1)
    if (last?.toSeq === seq - 1) last.toSeq = seq
    else out.push({ fromSeq: seq, toSeq: seq })
  }
  return out
}

/**
 * What `strata export` must print, built the plain way from the store's own reads: the header, each
 * item as `JSON.stringify` of the item the store returns, in seq order, then the content records and
 * the thread's state.
 */
async function expectedExport(threadId: string, withArchive: boolean): Promise<string> {
  const active = await store.read(threadId)
  const archived = await store.readArchive(threadId)
  const items: Item[] = [...(withArchive ? archived : []), ...active].sort(
    (left, right) => left.seq - right.seq,
  )
  const lastSeq = Math.max(...[...active, ...archived].map((item) => item.seq))
  const header = {
    format: 'strata-thread',
    version: 1,
    threadId,
    lastSeq,
    withArchive,
    archived: withArchive ? ranges(archived.map((item) => item.seq)) : [],
  }
  const records = await store.queryContent(threadId)
  const state = await store.getState(threadId)
  return [
    header,
    ...items,
    ...records.map((record) => ({ format: 'strata-content', record })),
    ...(state === undefined ? [] : [{ format: 'strata-state', state }]),
  ]
    .map((line) => `${JSON.stringify(line)}\n`)
    .join('')
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'strata-cli-export-'))
  store = fileStore({ dir })
  await writeFixtureThread(store)
  // Characters beyond ASCII, in a message and in a fact's content, and a batch of several items.
  const { lastSeq } = await store.head(FIXTURE_THREAD)
  await store.append(
    FIXTURE_THREAD,
    [
      {
        id: 'itm_unicode_1',
        ts: 1,
        level: 'project',
        turnId: 'turn_0099',
        type: 'message',
        role: 'user',
        content: [{ type: 'text', text: 'Grüße — 🌳 «\u2028» "quoted" \\ back' }],
      },
      {
        id: 'itm_unicode_2',
        ts: 2,
        level: 'project',
        turnId: 'turn_0099',
        type: 'fact',
        content: 'Ana pflanzt Äpfel 🍎',
        meta: { source: 'test' },
      },
    ] as never,
    { expectedSeq: lastSeq },
  )
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe('strata export --format jsonl output (the built binary)', { timeout: 60_000 }, () => {
  it('is, byte for byte, each item the store reads serialised in seq order, with and without --archive', async () => {
    for (const withArchive of [true, false]) {
      const run = await runStrata([
        '--store',
        dir,
        'export',
        FIXTURE_THREAD,
        ...(withArchive ? ['--archive'] : []),
      ])
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toBe(await expectedExport(FIXTURE_THREAD, withArchive))
    }
  })
})
