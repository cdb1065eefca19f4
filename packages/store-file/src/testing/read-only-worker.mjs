// Child of read-only-fs.test.ts, run inside a mount namespace where `dir` may be a read-only file
// system. Appends item 'a' at seq 0, then 'b' at seq 1, then sets the state, and prints each outcome
// as one JSON line. Usage: node read-only-worker.mjs <dir>
import { fileStore } from '@strata-memory/store-file'

const [dir] = process.argv.slice(2)
const store = fileStore({ dir, timeoutMs: 10_000 })
const item = (id) => ({
  id,
  ts: 1,
  level: 'global',
  turnId: 'turn_0001',
  type: 'message',
  role: 'user',
  content: [],
})
const calls = [
  ['append a', () => store.append('t', [item('a')], { expectedSeq: 0 })],
  ['append b', () => store.append('t', [item('b')], { expectedSeq: 1 })],
  ['setState', () => store.setState('t', { mode: 'x' })],
]
for (const [name, call] of calls) {
  try {
    await call()
    console.log(JSON.stringify({ name, ok: true }))
  } catch (error) {
    console.log(JSON.stringify({ name, code: error.code, message: error.message, details: error.details }))
  }
}
