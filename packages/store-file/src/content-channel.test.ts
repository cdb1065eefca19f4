import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeContentChannel } from '@strata-memory/core/testing'
import { afterAll } from 'vitest'
import { fileStore } from './file-store'

const directories: string[] = []

afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })))
})

// The content channel's key cases (offload, citation, retrieval, finished-task and archive queries, sharing) on real files.
describeContentChannel('fileStore', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'strata-content-channel-'))
  directories.push(directory)
  return fileStore({ dir: directory })
})
