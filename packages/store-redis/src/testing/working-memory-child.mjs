// A writer process for multi-process.test.ts: writes one resource's working memory through the BUILT
// package while another process does the same. First one racing write: both read the version, meet
// at a barrier, then write over that version, so exactly one can win. Then NOTES more notes, one write
// each, re-reading and merging after every STRATA_SEQ_CONFLICT, so that no note is lost.
import { StrataError } from '@strata-memory/core'
import { redisStore } from '@strata-memory/store-redis'
import { createClient } from 'redis'

const {
  STRATA_TEST_REDIS_URL: url,
  STRATA_TEST_PREFIX: prefix,
  STRATA_TEST_RESOURCE: resourceId,
} = process.env
const writer = process.env.STRATA_TEST_WRITER
const notes = Number(process.env.STRATA_TEST_NOTES)
const store = redisStore({ url, prefix })
const notesOf = (current) => current?.value?.notes ?? []

try {
  const read = await store.getWorkingMemory(resourceId)
  const barrier = createClient({ url, socket: { reconnectStrategy: false } })
  await barrier.connect()
  await barrier.incr(`${prefix}:working-memory-barrier`)
  const deadline = Date.now() + 20_000
  while (Number(await barrier.get(`${prefix}:working-memory-barrier`)) < 2 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  await barrier.close()

  let race
  try {
    const written = await store.setWorkingMemory(
      resourceId,
      { notes: [...notesOf(read), `${writer} race`] },
      { expectedVersion: read?.version ?? 0 },
    )
    race = { outcome: 'won', version: written.version }
  } catch (error) {
    if (!StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT')) throw error
    race = { outcome: 'conflict', details: error.details }
  }

  let conflicts = 0
  const pending = race.outcome === 'won' ? [] : [`${writer} race`]
  for (let index = 0; index < notes; index += 1) pending.push(`${writer} ${index}`)
  for (const note of pending) {
    for (;;) {
      const current = await store.getWorkingMemory(resourceId)
      try {
        await store.setWorkingMemory(
          resourceId,
          { notes: [...notesOf(current), note] },
          { expectedVersion: current?.version ?? 0 },
        )
        break
      } catch (error) {
        if (!StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT')) throw error
        conflicts += 1
      }
    }
  }
  process.stdout.write(`${JSON.stringify({ writer, race, conflicts })}\n`)
} finally {
  await store.close()
}
