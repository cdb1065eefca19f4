// A writer process for multi-process.test.ts: appends COUNT items to one thread through the BUILT
// package, one at a time, re-reading the head and retrying whenever another writer got there first.
import { redisStore } from '@strata-memory/store-redis'

const { STRATA_TEST_REDIS_URL: url, STRATA_TEST_PREFIX: prefix, STRATA_TEST_THREAD: threadId } = process.env
const writer = process.env.STRATA_TEST_WRITER
const count = Number(process.env.STRATA_TEST_COUNT)

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
