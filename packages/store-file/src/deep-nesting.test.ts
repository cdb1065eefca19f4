import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemory, MAX_JSON_DEPTH, StrataError } from '@strata-memory/core'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { fileStore } from './file-store'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-deep-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

it('a message nested 5 000 levels deep is a typed error and the JSONL log stays byte for byte', async () => {
  const thread = await createMemory({ store: fileStore({ dir }) }).thread('deep')
  await thread.append({ role: 'user', content: 'first' })
  const log = join(dir, 'agents', 'deep', 'raw_traces.jsonl')
  const before = await readFile(log)
  let value: unknown = 'leaf'
  for (let level = 0; level < 5_000; level++) value = [value]
  const error = await thread
    .append({ role: 'user', content: [{ type: 'text', text: 'hi', providerOptions: value } as never] })
    .catch((caught: unknown) => caught)
  expect(StrataError.isInstance(error, 'STRATA_INVALID_MESSAGE')).toBe(true)
  expect((error as StrataError).details).toMatchObject({ reason: 'depth', maxDepth: MAX_JSON_DEPTH })
  expect(await readFile(log)).toEqual(before)
})
