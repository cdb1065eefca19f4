// A writer process for multi-process.test.ts: appends COUNT items to one thread through the BUILT
// package, one at a time, re-reading the head and retrying whenever another writer got there first.
import { redisStore } from '@strata-memory/store-redis'
import { createClient } from 'redis'

const { STRATA_TEST_REDIS_URL: url, STRATA_TEST_PREFIX: prefix, STRATA_TEST_THREAD: threadId } = process.env
const writer = process.env.STRATA_TEST_WRITER
const count = Number(process.env.STRATA_TEST_COUNT)

// Both writers start together (a process that starts late under load would otherwise find the other
// one done, and the two would never race): each counts itself in, then waits for the other.
const barrier = createClient({ url, socket: { reconnectStrategy: false } })
await barrier.connect()
await barrier.incr(`${prefix}:barrier`)
const deadline = Date.now() + 20_000
while (Number(await barrier.get(`${prefix}:barrier`)) < 2 && Date.now() < deadline) {
  await new Promise((resolve) => setTimeout(resolve, 5))
}
await barrier.close()

const store = redisStore({ url, prefix })
let conflicts = 0
try {
  for (let index = 0; index < count; index++) {
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
        if (error?.code !== 'STRATA_SEQ_CONFLICT') throw error
        conflicts++
      }
    }
  }
} finally {
  await store.close()
}
process.stdout.write(JSON.stringify({ writer, conflicts }))
