import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemory } from '@strata-memory/core'
import { agentTurn, countingStore, describeThreadOpen } from '@strata-memory/core/testing'
import { fileStore } from '@strata-memory/store-file'
import { afterEach, describe, expect, it } from 'vitest'
import { loadUIMessages } from './load-ui-messages'

const dirs: string[] = []
const temporaryDirectory = () => {
  const dir = mkdtempSync(join(tmpdir(), 'strata-ai-sdk-open-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

// The file store: the store a serverless route opens threads from on every request.
describeThreadOpen('fileStore', () => fileStore({ dir: temporaryDirectory() }))

describe('loadUIMessages on a compacted thread', () => {
  it('with visibleOnly opens and reads without touching the archive', async () => {
    const dir = temporaryDirectory()
    const options = { compaction: { budget: { inputTokens: 3_000 } } } as const
    const writer = createMemory({ ...options, store: fileStore({ dir }) })
    const thread = await writer.thread('chat')
    for (let turn = 1; turn <= 40; turn++) {
      await thread.append(agentTurn(turn))
      if (turn % 10 === 0) await thread.compact({ force: true })
    }
    await writer.close()
    const { store, reads } = countingStore(fileStore({ dir }))
    const memory = createMemory({ ...options, store })
    const visible = await loadUIMessages(memory, 'chat', { visibleOnly: true })
    expect(visible.length).toBeGreaterThan(0)
    expect(reads.readArchive).toBe(0)
    // Turns archived by compaction are shown as they were: the archive is read, a page at a time.
    const all = await loadUIMessages(memory, 'chat')
    expect(all.length).toBeGreaterThan(visible.length)
    expect(reads.readArchive).toBeGreaterThan(0)
    await memory.close()
  })
})
