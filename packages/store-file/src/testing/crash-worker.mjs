// A child process of crash-safety.test.ts: appends batches of 1-3 items to one thread until it is
// killed, printing `ack <seq>:<id> …` after each append resolved and `event <type>` for each repair; in
// `archive` mode it also archives every other active item after every third append. `phase append`,
// `phase archive` and `phase idle` mark when a write starts and ends (stdout to a pipe is synchronous
// on Linux), so the parent knows what the child was doing when it was killed.
// Usage: node crash-worker.mjs <dir> <threadId> <append|archive>
import { StrataError } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'

const [dir, threadId, mode] = process.argv.slice(2)
const store = fileStore({ dir, onEvent: (event) => process.stdout.write(`event ${event.type}\n`) })
const padding = 'x'.repeat(1_500)
process.stdout.write('ready\n')

for (let round = 0; ; round += 1) {
  const items = Array.from({ length: 1 + (round % 3) }, (_, index) => ({
    id: `${process.pid}-${round}-${index}`,
    ts: Date.now(),
    level: 'global',
    turnId: 'turn_0001',
    type: 'message',
    role: 'assistant',
    content: [{ type: 'text', text: `${round}/${index} ${padding}` }],
  }))
  const { lastSeq } = await store.head(threadId)
  try {
    process.stdout.write('phase append\n')
    const stored = await store.append(threadId, items, { expectedSeq: lastSeq })
    process.stdout.write(`ack ${stored.map((item) => `${item.seq}:${item.id}`).join(' ')}\n`)
  } catch (error) {
    if (!StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT')) throw error
  }
  process.stdout.write('phase idle\n')
  if (mode === 'archive' && round % 3 === 2) {
    const active = await store.read(threadId)
    process.stdout.write('phase archive\n')
    await store.archive(threadId, {
      seqs: active.filter((_, index) => index % 2 === 0).map((item) => item.seq),
    })
    process.stdout.write('phase idle\n')
  }
}
