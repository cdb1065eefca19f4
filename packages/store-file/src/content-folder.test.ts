import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { fileStore } from './file-store'
import { runProcess } from './testing/run-worker'

const WORKER = join(import.meta.dirname, 'testing', 'content-query-worker.mjs')
/** Open files the worker may hold: the limit a process starts with on many systems is 1,024. */
const FILE_LIMIT = 96
/** Records in the folder: several times what the worker may open at once. */
const RECORDS = 400

let dir: string | undefined
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  dir = undefined
})

describe('a content folder with more records than the process may open files', () => {
  it('is queried whole, whatever the limit of open files', async () => {
    dir = await mkdtemp(join(tmpdir(), 'strata-content-folder-'))
    const store = fileStore({ dir, fsync: false })
    for (let index = 0; index < RECORDS; index++) {
      await store.putContent('t', {
        id: `m_${index}`,
        type: 'text',
        tags: [],
        ts: 1_000 + index,
        size: 4,
        data: 'data',
      })
    }
    await store.close?.()
    // `ulimit -n` lowers both limits, so node cannot raise its own again.
    const output = await runProcess('bash', [
      '-c',
      `ulimit -n ${FILE_LIMIT} && exec "$0" "$@"`,
      process.execPath,
      WORKER,
      dir,
    ])
    expect(JSON.parse(output.trim())).toEqual({ records: RECORDS })
  })
})
