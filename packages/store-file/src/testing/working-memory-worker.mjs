// A child process of multi-process.test.ts: writes one resource's working memory through the built
// package while another process does the same.
// Usage: node working-memory-worker.mjs <dir> <resourceId> <writer> <notes> <startAt>
// First, one racing write: the version is read before startAt (epoch ms), written at startAt, so both
// processes write over the same version and exactly one can win. Then `notes` more notes, one write
// each, re-reading and merging after every STRATA_SEQ_CONFLICT, so that no note is lost.
import { StrataError } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'

const [dir, resourceId, writer, notesText, startAtText] = process.argv.slice(2)
const store = fileStore({ dir })
const notesOf = (current) => current?.value?.notes ?? []

const read = await store.getWorkingMemory(resourceId)
const startAt = Number(startAtText)
if (startAt > Date.now()) await new Promise((resolve) => setTimeout(resolve, startAt - Date.now()))
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
for (let index = 0; index < Number(notesText); index += 1) pending.push(`${writer} ${index}`)
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
