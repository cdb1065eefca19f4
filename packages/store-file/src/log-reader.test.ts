import { execFileSync } from 'node:child_process'
import { closeSync, openSync, statSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openLog, readLogRange, SYNC_READ_BYTES } from './log-reader'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-log-reader-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('openLog', () => {
  it('reads a small regular file and a large one alike', async () => {
    for (const size of [10, SYNC_READ_BYTES + 1]) {
      const path = join(dir, `log-${size}`)
      const bytes = Buffer.alloc(size, 'a')
      bytes[size - 1] = 0x0a
      writeFileSync(path, bytes)
      const reader = await openLog(path, statSync(path))
      expect((await reader.stat()).size).toBe(size)
      expect((await readLogRange(reader, 0, size + 5)).equals(bytes)).toBe(true)
      await reader.close()
    }
  })

  it.skipIf(process.platform === 'win32')(
    'does not block the thread on a FIFO swapped in after the stat, and hands it to the thread pool',
    async () => {
      const path = join(dir, 'log')
      writeFileSync(path, 'x\n')
      const stats = statSync(path)
      await rm(path)
      execFileSync('mkfifo', [path])
      // A blocking open would never return here: nobody writes to the FIFO yet.
      const opening = openLog(path, stats)
      let opened = false
      void opening.then(() => {
        opened = true
      })
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(opened).toBe(false)
      // A writer that closes at once: the pool's open returns, with the FIFO (reading it at a position
      // fails, as it always did: the store reports STRATA_STORE_FAILED).
      closeSync(openSync(path, 'w'))
      const reader = await opening
      expect((await reader.stat()).isFIFO()).toBe(true)
      await reader.close()
    },
    10_000,
  )
})
