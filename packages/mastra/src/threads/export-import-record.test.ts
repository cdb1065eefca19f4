import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createMemory } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { StrataMemory } from '../memory/strata-memory'
import { strataAgent } from '../testing/agent-harness'

// The Mastra thread record (resource, title, metadata, dates) travels with `strata export` / `import`,
// and the CLI takes Mastra's own thread id: the built `strata` binary, as a user's shell runs it.

const require = createRequire(import.meta.url)
const STRATA_BIN = join(dirname(require.resolve('@strata-memory/cli/package.json')), 'dist', 'bin.js')

function strata(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [STRATA_BIN, ...args],
      { env: { ...process.env, NO_COLOR: '1', STRATA_MEMORY_DIR: '' }, timeout: 60_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error)
        resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr })
      },
    )
  })
}

let work: string
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'strata-mastra-export-'))
})
afterEach(() => rmSync(work, { recursive: true, force: true }))

it('export → import → getThreadById returns the same record; the CLI takes the Mastra thread id', async () => {
  const from = join(work, 'from')
  const to = join(work, 'to')
  const threadId = 'ana@example.com/garden plan'
  const memory = createMemory({ store: fileStore({ dir: from }) })
  const { agent, strata: mastraMemory } = strataAgent(memory, [{ text: 'Three apple trees by the fence.' }])
  await mastraMemory.saveThread({
    thread: {
      id: threadId,
      resourceId: 'ana',
      title: 'Garden plan',
      metadata: { season: 'spring', beds: { north: 2, south: 1 } },
      createdAt: new Date('2026-11-20T09:00:00Z'),
      updatedAt: new Date('2026-11-20T09:00:00Z'),
    },
  })
  await agent.generate('Where do the trees go?', { memory: { thread: threadId, resource: 'ana' } })
  const record = await mastraMemory.getThreadById({ threadId })
  expect(record).toMatchObject({ id: threadId, resourceId: 'ana', title: 'Garden plan' })
  await memory.close()

  // The CLI names the thread by Mastra's id.
  const status = await strata(['status', threadId, '--store', from])
  expect(status.code).toBe(0)
  expect(status.stdout).toContain(threadId)
  const threads = await strata(['threads', '--store', from])
  expect(threads.stdout).toContain(threadId)

  const exported = await strata(['export', threadId, '--archive', '--store', from])
  expect(exported.code).toBe(0)
  const file = join(work, 'garden.jsonl')
  writeFileSync(file, exported.stdout)
  const imported = await strata(['import', file, '--store', to])
  expect(imported.code).toBe(0)

  const copy = new StrataMemory({ memory: createMemory({ store: fileStore({ dir: to }) }) })
  expect(await copy.getThreadById({ threadId })).toEqual(record)
  const listed = await copy.listThreads({ filter: { resourceId: 'ana' } })
  expect(listed.threads.map((thread) => thread.id)).toEqual([threadId])
  const recalled = await copy.recall({ threadId, resourceId: 'ana' })
  expect(recalled.messages.map((message) => message.role)).toEqual(['user', 'assistant'])
})
