import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeItems } from '@strata-memory/core/testing'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { fileStore } from './file-store'

const directories: string[] = []
async function temporaryDirectory(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'strata-file-resources-'))
  directories.push(dir)
  return dir
}

afterEach(async () => {
  await Promise.all(directories.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

describe('fileStore: resources on disk', () => {
  it('keeps a resource in resources/<id>/ and a thread binding and vectors in the thread folder', async () => {
    const dir = await temporaryDirectory()
    const store = fileStore({ dir })
    await store.append('chat-1', makeItems(2), { expectedSeq: 0 })
    await store.setThreadResource('chat-1', 'user-42', { expected: undefined })
    await store.setWorkingMemory('user-42', { name: 'Zoë' }, { expectedVersion: 0 })
    await store.putDocument('user-42', ['memories'], 'food', { likes: 'tea' })
    await store.putVectors('chat-1', [{ id: 'item:1', model: 'm', vector: new Float32Array([0.5, -0]) }])
    expect((await readdir(join(dir, 'resources', 'user-42'))).sort()).toEqual([
      'documents.json',
      'threads.json',
      'working-memory.json',
    ])
    expect(JSON.parse(await readFile(join(dir, 'agents', 'chat-1', 'resource.json'), 'utf8'))).toEqual({
      resourceId: 'user-42',
    })
    const vectors = JSON.parse(await readFile(join(dir, 'agents', 'chat-1', 'vectors.json'), 'utf8'))
    expect(vectors).toEqual({
      format: 'strata-vectors/1',
      records: [
        {
          id: 'item:1',
          model: 'm',
          dimensions: 2,
          float32le: Buffer.from([0, 0, 0, 63, 0, 0, 0, 128]).toString('base64'),
        },
      ],
    })
    // A resource folder is no thread, nor is a thread folder holding only a binding.
    await store.setThreadResource('chat-2', 'user-42', { expected: undefined })
    expect(await store.listThreads()).toEqual(['chat-1'])
  })

  it('a move cut short after the binding changed is finished by the next call, and converges', async () => {
    const dir = await temporaryDirectory()
    const store = fileStore({ dir })
    await store.touchResourceThread('user-a', 'chat-1', 1_000)
    await store.setThreadResource('chat-1', 'user-a', { expected: undefined })
    // What a process that died right after writing the binding leaves behind.
    const binding = join(dir, 'agents', 'chat-1', 'resource.json')
    await writeFile(binding, JSON.stringify({ resourceId: 'user-b', movingFrom: 'user-a' }))
    expect(await store.getThreadResource('chat-1')).toBe('user-b')
    for (let repeat = 0; repeat < 2; repeat++) {
      await store.setThreadResource('chat-1', 'user-b', { expected: 'user-b' })
      expect((await store.listResourceThreads('user-a')).threads).toEqual([])
      expect((await store.listResourceThreads('user-b')).threads).toEqual([
        { threadId: 'chat-1', lastAppendAt: 1_000 },
      ])
      expect(JSON.parse(await readFile(binding, 'utf8'))).toEqual({ resourceId: 'user-b' })
    }
  })

  it('reports a vectors file it did not write as STRATA_CORRUPT_LOG naming it', async () => {
    const dir = await temporaryDirectory()
    const store = fileStore({ dir })
    await store.putVectors('chat-1', [{ id: 'item:1', model: 'm', vector: new Float32Array([1]) }])
    await writeFile(join(dir, 'agents', 'chat-1', 'vectors.json'), '{"format":"other"}')
    await expect(store.readVectors('chat-1')).rejects.toMatchObject({
      code: 'STRATA_CORRUPT_LOG',
      details: { file: join(dir, 'agents', 'chat-1', 'vectors.json') },
    })
  })

  it('paging through any set of entries returns each exactly once, newest first, ties by id', async () => {
    const dir = await temporaryDirectory()
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ thread: fc.integer({ min: 0, max: 20 }), at: fc.integer({ min: 0, max: 5 }) }), {
          maxLength: 30,
        }),
        fc.integer({ min: 1, max: 8 }),
        async (touches, limit) => {
          const store = fileStore({ dir, fsync: false })
          const resourceId = `user-${++run}`
          const latest = new Map<string, number>()
          for (const { thread, at } of touches) {
            await store.touchResourceThread(resourceId, `t-${thread}`, at)
            latest.set(`t-${thread}`, Math.max(latest.get(`t-${thread}`) ?? 0, at))
          }
          const expected = [...latest]
            .map(([threadId, lastAppendAt]) => ({ threadId, lastAppendAt }))
            .sort((left, right) =>
              left.lastAppendAt !== right.lastAppendAt
                ? right.lastAppendAt - left.lastAppendAt
                : left.threadId < right.threadId
                  ? -1
                  : 1,
            )
          const seen = []
          let cursor: string | undefined
          do {
            const page = await store.listResourceThreads(
              resourceId,
              cursor === undefined ? { limit } : { limit, cursor },
            )
            seen.push(...page.threads)
            cursor = page.cursor
          } while (cursor !== undefined)
          expect(seen).toEqual(expected)
        },
      ),
      { numRuns: 40 },
    )
  })
})
