// Child of content-folder.test.ts, run with a low limit of open files (`ulimit -n`): queries every
// content record of thread `t` and prints how many came back, or the error's code and message.
// Usage: node content-query-worker.mjs <dir>
import { fileStore } from '@strata-memory/store-file'

const [dir] = process.argv.slice(2)
const store = fileStore({ dir, timeoutMs: 30_000 })
try {
  const records = await store.queryContent('t')
  console.log(JSON.stringify({ records: records.length }))
} catch (error) {
  console.log(JSON.stringify({ code: error.code, message: error.message }))
}
