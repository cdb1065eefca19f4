import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeThreadRewind } from '@strata-memory/core/testing'
import { afterAll } from 'vitest'
import { fileStore } from './file-store'

const directories: string[] = []

afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })))
})

// Regenerate, edit, reopen, conflicts and refusals of thread.rewind() on real files.
describeThreadRewind('fileStore', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'strata-rewind-'))
  directories.push(directory)
  return fileStore({ dir: directory })
})
