// A child process of thread-hold.test.ts, through the BUILT packages. STRATA_TEST_MODE picks:
// - `requests`: at STRATA_TEST_START_AT (epoch ms) runs STRATA_TEST_COUNT requests on one thread, each
//   as an adapter runs one: hold the thread, append a user message, an assistant tool call and (after
//   the tool ran) its result, release; they arrive over half a second. Even requests use this
//   process's memory (one thread object), odd ones a memory of their own. Prints
//   `{ completed, busy, failed }`.
// - `hold`: holds the thread for STRATA_TEST_TTL_MS, appends a user message, prints `held` and waits
//   to be killed, like a process that dies mid-stream.
import { createMemory, StrataError } from '@strata-memory/core'
import { redisStore } from '@strata-memory/store-redis'

const env = process.env
const threadId = env.STRATA_TEST_THREAD
const store = redisStore({ url: env.STRATA_TEST_REDIS_URL, prefix: env.STRATA_TEST_PREFIX })
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

if (env.STRATA_TEST_MODE === 'hold') {
  const thread = await createMemory({ store }).thread(threadId)
  await thread.hold({ ttlMs: Number(env.STRATA_TEST_TTL_MS) })
  await thread.append({ role: 'user', content: `request of ${process.pid}, killed mid-stream` })
  process.stdout.write('held\n')
  // The hold's renewal timer does not keep a process alive: this does, until the kill.
  setInterval(() => {}, 60_000)
  await new Promise(() => {})
}

const shared = createMemory({ store })

async function request(index) {
  await sleep(Math.random() * 500)
  const memory = index % 2 === 0 ? shared : createMemory({ store })
  const thread = await memory.thread(threadId)
  const hold = await thread.hold()
  try {
    const callId = `call-${process.pid}-${index}`
    await thread.append({ role: 'user', content: `request ${process.pid}/${index}` })
    await thread.append({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: callId, toolName: 'lookup', input: { index } }],
    })
    await sleep(Math.random() * 5)
    await thread.append({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: callId, toolName: 'lookup', output: { index } }],
    })
  } finally {
    await hold.release()
  }
}

const startAt = Number(env.STRATA_TEST_START_AT)
if (startAt > Date.now()) await sleep(startAt - Date.now())
const results = await Promise.allSettled(
  Array.from({ length: Number(env.STRATA_TEST_COUNT) }, (_, index) => request(index)),
)
const report = { completed: 0, busy: 0, failed: [] }
for (const result of results) {
  if (result.status === 'fulfilled') report.completed++
  else if (StrataError.isInstance(result.reason, 'STRATA_THREAD_BUSY')) report.busy++
  else report.failed.push(String(result.reason?.stack ?? result.reason))
}
await shared.close()
process.stdout.write(`${JSON.stringify(report)}\n`)
