import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { fileStore } from './file-store'
import { runWorker } from './testing/run-worker'

// The children import the built package (`@strata-memory/store-file` → dist): build it first.
const WORKER = fileURLToPath(new URL('./testing/append-worker.mjs', import.meta.url))
const WORKING_MEMORY_WORKER = fileURLToPath(new URL('./testing/working-memory-worker.mjs', import.meta.url))
const PER_WRITER = 1_000

describe('two processes appending to one thread', () => {
  let dir: string | undefined

  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  it('stores 2 × 1000 items exactly once each, seqs 1..2000 without a gap', async () => {
    dir = await mkdtemp(join(tmpdir(), 'strata-multi-process-'))
    // Both start appending at the same moment, however long each process takes to start.
    const startAt = String(Date.now() + 2_500)
    const outputs = await Promise.all(
      ['left', 'right'].map((writer) =>
        runWorker(WORKER, [dir!, 'shared-thread', writer, String(PER_WRITER), startAt]),
      ),
    )
    const reports = outputs.map((output) => JSON.parse(output) as { writer: string; conflicts: number })

    const items = await fileStore({ dir }).read('shared-thread')
    expect(items.map((item) => item.seq)).toEqual(
      Array.from({ length: 2 * PER_WRITER }, (_, index) => index + 1),
    )
    expect(new Set(items.map((item) => item.id)).size).toBe(2 * PER_WRITER)
    for (const writer of ['left', 'right']) {
      const mine = items.filter((item) => item.meta?.writer === writer).map((item) => item.meta?.index)
      expect(mine).toEqual(Array.from({ length: PER_WRITER }, (_, index) => index))
    }
    expect(await fileStore({ dir }).head('shared-thread')).toEqual({
      lastSeq: 2 * PER_WRITER,
      activeCount: 2 * PER_WRITER,
      archivedCount: 0,
    })
    // Both really raced: the seq check turned some of their appends into conflicts they retried.
    expect(reports.reduce((sum, report) => sum + report.conflicts, 0)).toBeGreaterThan(0)
  }, 120_000)
})

describe('two processes write working memory at once', () => {
  let dir: string | undefined

  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  it('one wins, the other gets the typed conflict, nothing lost', async () => {
    dir = await mkdtemp(join(tmpdir(), 'strata-working-memory-'))
    const notes = 40
    // Both read the version first, then write at the same moment, however long each takes to start.
    const startAt = String(Date.now() + 2_500)
    const outputs = await Promise.all(
      ['left', 'right'].map((writer) =>
        runWorker(WORKING_MEMORY_WORKER, [dir!, 'user-42', writer, String(notes), startAt]),
      ),
    )
    const reports = outputs.map(
      (output) =>
        JSON.parse(output) as {
          writer: string
          race: { outcome: string; details?: Record<string, unknown> }
          conflicts: number
        },
    )
    expect(reports.map((report) => report.race.outcome).sort()).toEqual(['conflict', 'won'])
    const loser = reports.find((report) => report.race.outcome === 'conflict')!
    // The winner may have written more notes by the time the loser's write was refused.
    expect(loser.race.details).toMatchObject({ resourceId: 'user-42', expectedVersion: 0 })
    expect(loser.race.details?.actualVersion).toBeGreaterThanOrEqual(1)

    const stored = await fileStore({ dir }).getWorkingMemory('user-42')
    const kept = (stored!.value as { notes: string[] }).notes
    // Every write that succeeded is there, in the order it was made: nothing lost, nothing twice.
    expect(stored?.version).toBe(2 + 2 * notes)
    expect(kept).toHaveLength(2 + 2 * notes)
    expect(kept[0]).toBe(`${reports.find((report) => report.race.outcome === 'won')!.writer} race`)
    for (const writer of ['left', 'right']) {
      const mine = kept.filter((note) => note.startsWith(`${writer} `))
      const expected = Array.from({ length: notes }, (_, index) => `${writer} ${index}`)
      expect(mine.filter((note) => note !== `${writer} race`)).toEqual(expected)
      expect(mine).toContain(`${writer} race`)
    }
  }, 120_000)
})
