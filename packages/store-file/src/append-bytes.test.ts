import { mkdtempSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { UnsequencedItem } from '@strata-memory/core'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { fileStore } from './file-store'

const dir = mkdtempSync(join(tmpdir(), 'strata-append-bytes-'))
afterAll(() => rm(dir, { recursive: true, force: true }))

/** Texts of one to four bytes a character, so a batch's lines outgrow a buffer sized one byte a character. */
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('日本語のテキスト', '🙂🙃 emoji', 'ß é ü', 'plain ascii'),
)

let thread = 0
describe('append bytes', () => {
  it('writes each batch as its lines in UTF-8, one newline each, and reads them back from a new store', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(text, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 }),
        async (batches) => {
          const threadId = `bytes-${++thread}`
          const store = fileStore({ dir, fsync: false })
          let lastSeq = 0
          const appended = []
          for (const [batchIndex, texts] of batches.entries()) {
            const items = texts.map(
              (content, index): UnsequencedItem => ({
                id: `m${batchIndex}-${index}`,
                ts: 1,
                level: 'global',
                turnId: 'turn_0001',
                type: 'message',
                role: 'user',
                content: [{ type: 'text', text: content }],
              }),
            )
            const stored = await store.append(threadId, items, { expectedSeq: lastSeq })
            lastSeq = stored.at(-1)!.seq
            appended.push(...stored)
          }
          await store.close?.()
          const bytes = await readFile(join(dir, 'agents', threadId, 'raw_traces.jsonl'))
          const lines = bytes.toString('utf8').split('\n')
          expect(lines.pop()).toBe('')
          expect(lines).toHaveLength(appended.length)
          expect(Buffer.byteLength(lines.join('\n')) + 1).toBe(bytes.length)
          const fresh = fileStore({ dir })
          expect(await fresh.read(threadId, {})).toEqual(appended)
          await fresh.close?.()
        },
      ),
      { numRuns: 40 },
    )
  })
})
