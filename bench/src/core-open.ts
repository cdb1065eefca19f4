import { mkdtempSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemory, type StrataStore } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { redisStore } from '@strata-memory/store-redis'
import { createClient } from 'redis'
import { agentThreadItems, fillThread } from './fixtures/large-thread.ts'
import { type BenchRow, measure, rowOf, significant } from './harness.ts'
import { startRedis } from './stores-redis-append.ts'

const THREAD = 'bench.open'

/** Opens the thread with a fresh memory (no warm caches in core) and builds one context. */
async function openAndContext(store: StrataStore): Promise<number> {
  const thread = await createMemory({ store }).thread(THREAD)
  const { messages } = await thread.context()
  return messages.length
}

/**
 * Cold open: a fresh `createMemory`, `memory.thread(id)` and one `thread.context()` on a thread of 1k,
 * 10k and 100k items, against the bare read and parse of the same log (file: readFile of the JSONL,
 * split, JSON.parse per line; Redis: LRANGE of the log list, JSON.parse per entry, with the same
 * client library). Rows `open/file` and `open/redis`, unit ms: lower is better, and so is the ratio.
 */
export async function openRows(
  sizes: readonly number[],
  progress: (line: string) => void,
): Promise<{ rows: BenchRow[]; notes: string[] }> {
  const rows: BenchRow[] = []
  const notes: string[] = []
  const redis = await startRedis()
  const client = createClient({ url: redis.url, socket: { reconnectStrategy: false } })
  await client.connect()
  const shared = redisStore({ url: redis.url })
  try {
    for (const size of sizes) {
      const items = await agentThreadItems(size)
      const dir = mkdtempSync(join(tmpdir(), 'strata-bench-open-'))
      try {
        const fill = await fillThread(fileStore({ dir }), THREAD, items)
        const redisFill = await fillThread(shared, THREAD, items)
        notes.push(
          `open: ${size.toLocaleString('en-US')} items filled by batch append in ${significant(fill)} ms (file), ${significant(redisFill)} ms (redis).`,
        )
        const log = join(dir, 'agents', THREAD, 'raw_traces.jsonl')
        const parseFile = async () => {
          const lines = (await readFile(log, 'utf8')).split('\n')
          let parsed = 0
          for (const line of lines) if (line.length > 0) parsed += JSON.parse(line) === null ? 0 : 1
          return parsed
        }
        if ((await parseFile()) !== size) throw new Error(`the file log holds other than ${size} items`)
        // A fresh file store each time: nothing of an earlier open stays cached in the store either.
        const fileOpen = async () => {
          const store = fileStore({ dir })
          try {
            return await openAndContext(store)
          } finally {
            await store.close?.()
          }
        }
        const options = { samples: 7, minSamples: 3, warmupMs: 0, maxMs: 4_000 }
        const fileTime = await measure({ strata: fileOpen, baseline: parseFile, ...options })
        rows.push(
          rowOf('open/file', { items: size, store: 'file' }, fileTime, {
            baselineName: 'readFile of the JSONL + JSON.parse per line',
          }),
        )
        progress(`core-view: open/file at ${size.toLocaleString('en-US')} items measured`)

        const key = `strata:{${THREAD}}:log`
        const parseRedis = async () => {
          // Element 0 of the list is the store's header, not an item.
          const entries = await client.lRange(key, 1, -1)
          let parsed = 0
          for (const entry of entries) parsed += JSON.parse(entry) === null ? 0 : 1
          return parsed
        }
        if ((await parseRedis()) !== size) throw new Error(`the redis log holds other than ${size} items`)
        const redisTime = await measure({
          strata: () => openAndContext(shared),
          baseline: parseRedis,
          ...options,
        })
        rows.push(
          rowOf('open/redis', { items: size, store: 'redis' }, redisTime, {
            baselineName: 'LRANGE of the log list + JSON.parse per entry (redis client)',
          }),
        )
        progress(`core-view: open/redis at ${size.toLocaleString('en-US')} items measured`)
        await shared.deleteThread(THREAD)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  } finally {
    await shared.close?.()
    await client.close()
    await redis.stop()
  }
  return { rows, notes }
}
