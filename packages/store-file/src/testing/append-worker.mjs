// A child process of multi-process.test.ts: appends `count` items to one thread through the built
// package, one item per append, retrying on STRATA_SEQ_CONFLICT after re-reading the head.
// Usage: node append-worker.mjs <dir> <threadId> <writer> <count> [startAt]
// With startAt (epoch ms) it waits until then, so writers started one after the other still overlap.
import { StrataError } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'

const [dir, threadId, writer, countText, startAtText] = process.argv.slice(2)
const count = Number(countText)
const startAt = Number(startAtText ?? 0)
if (startAt > Date.now()) await new Promise((resolve) => setTimeout(resolve, startAt - Date.now()))
const store = fileStore({ dir })
let conflicts = 0

for (let index = 0; index < count; index += 1) {
  const item = {
    id: `${writer}-${index}`,
    ts: Date.now(),
    level: 'global',
    turnId: 'turn_0001',
    type: 'message',
    role: 'user',
    content: [{ type: 'text', text: `${writer} ${index}` }],
    meta: { writer, index },
  }
  for (;;) {
    const { lastSeq } = await store.head(threadId)
    try {
      await store.append(threadId, [item], { expectedSeq: lastSeq })
      break
    } catch (error) {
      if (!StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT')) throw error
      conflicts += 1
    }
  }
}
process.stdout.write(`${JSON.stringify({ writer, conflicts })}\n`)
