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
