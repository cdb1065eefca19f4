// A child process of verify-crash.test.ts: appends 200 items at a time to one thread and archives
// every other active item after each append, until it is killed. Prints `ack <seq>:<id> …` after each
// acknowledged append and `phase archive` / `phase idle` around each archive (stdout to a pipe is
// written synchronously), so the parent can kill it inside an archive.
// Usage: node archive-worker.mjs <dir> <threadId>
import { fileStore } from '@strata-memory/store-file'

const [dir, threadId] = process.argv.slice(2)
const store = fileStore({ dir, onEvent: () => undefined })
const padding = 'y'.repeat(1_200)
process.stdout.write('ready\n')
for (let round = 0; ; round++) {
  const { lastSeq } = await store.head(threadId)
  const items = Array.from({ length: 200 }, (_, index) => ({
    id: `${process.pid}-${round}-${index}`,
    ts: Date.now(),
    level: 'global',
    turnId: `turn_${round}`,
    type: 'message',
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [{ type: 'text', text: `${round}/${index} ${padding}` }],
  }))
  const stored = await store.append(threadId, items, { expectedSeq: lastSeq })
  process.stdout.write(`ack ${stored.map((item) => `${item.seq}:${item.id}`).join(' ')}\n`)
  const active = await store.read(threadId)
  process.stdout.write('phase archive\n')
  await store.archive(threadId, {
    seqs: active.filter((_, index) => index % 2 === 0).map((item) => item.seq),
  })
  process.stdout.write('phase idle\n')
}
