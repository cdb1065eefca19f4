// A child process of thread-hold.test.ts, through the BUILT packages. Two modes:
// - `requests <dir> <threadId> <count> <startAt>`: at startAt (epoch ms) runs <count> requests on one
//   thread at once, each as an adapter runs one: hold the thread, append a user message, an assistant
//   tool call and (after the tool ran) its result, release; they arrive over half a second. Even requests use this process's memory
//   (one thread object), odd ones a memory of their own. Prints `{ completed, busy, failed }`.
// - `hold <dir> <threadId> <ttlMs>`: holds the thread, appends a user message, prints `held` and waits
//   to be killed, like a process that dies mid-stream.
import { createMemory, StrataError } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'

const [mode, dir, threadId, countText, startAtText] = process.argv.slice(2)
const store = fileStore({ dir })
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

if (mode === 'hold') {
  const thread = await createMemory({ store }).thread(threadId)
  await thread.hold({ ttlMs: Number(countText) })
  await thread.append({ role: 'user', content: `request of ${process.pid}, killed mid-stream` })
  process.stdout.write('held\n')
  // The hold's renewal timer does not keep a process alive: this does, until the kill.
  setInterval(() => {}, 60_000)
  await new Promise(() => {})
}

const shared = createMemory({ store })
const count = Number(countText)

async function request(index) {
  // Requests arrive over half a second, so some find the thread free and some find it held.
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

const startAt = Number(startAtText)
if (startAt > Date.now()) await sleep(startAt - Date.now())
const results = await Promise.allSettled(Array.from({ length: count }, (_, index) => request(index)))
const report = { completed: 0, busy: 0, failed: [] }
for (const result of results) {
  if (result.status === 'fulfilled') report.completed++
  else if (StrataError.isInstance(result.reason, 'STRATA_THREAD_BUSY')) report.busy++
  else report.failed.push(String(result.reason?.stack ?? result.reason))
}
await shared.close()
process.stdout.write(`${JSON.stringify(report)}\n`)
