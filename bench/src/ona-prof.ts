import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadUIMessages } from '@strata-memory/ai-sdk'
import { createMemory, inMemoryStore } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { agentThreadOperations, applyOperations } from '/work/wt/open-no-archive/bench/src/agent-thread.ts'
const size = Number(process.argv[2] ?? 10000)
const mode = process.argv[3] ?? 'ui'
import { existsSync } from 'node:fs'
const dir = `/tmp/ona-fixture-${size}`
const threadId = `bench.ui.${size}`
if (!existsSync(dir)) {
const writer = createMemory({ store: fileStore({ dir }) })
const thread = await writer.thread(threadId)
await applyOperations(thread, agentThreadOperations(size))
await writer.close()
}
const head = await fileStore({ dir }).head(threadId)
console.log('head', head)
const memStore = inMemoryStore()
if (process.argv[4] === 'mem') {
  const src = fileStore({ dir })
  await memStore.append(threadId, (await src.read(threadId)).map(({ seq, ...rest }) => rest), { expectedSeq: 0 })
}
const times: number[] = []
const timesOpen: number[] = []
const timesCtx: number[] = []
for (let i = 0; i < 15; i++) {
  let t = performance.now()
  const base = process.argv[4] === 'mem' ? memStore : fileStore({ dir })
  const store = new Proxy(base, { get(target, key) { const v = (target as any)[key]; if (typeof v !== 'function') return v; return async (...args: any[]) => { const t0 = performance.now(); try { return await v.apply(target, args) } finally { (globalThis as any).st ??= {}; const k = String(key); (globalThis as any).st[k] = ((globalThis as any).st[k] ?? 0) + performance.now() - t0 } } } })
  const memory = createMemory({ store })
  if (mode === 'ui') await loadUIMessages(memory, threadId)
  else { const th = await memory.thread(threadId); timesOpen.push(performance.now() - t); await th.context(); }
  times.push(performance.now() - t)
  await memory.close()
}
const med = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1]
console.log(Object.fromEntries(Object.entries((globalThis as any).st).map(([k, v]) => [k, ((v as number) / 15).toFixed(1)])))
console.log(mode, size, 'median ms', med(times).toFixed(1), 'open', timesOpen.length ? med(timesOpen).toFixed(1) : '')
