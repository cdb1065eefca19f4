import { createMemory } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
const dir = process.argv[2]!, id = process.argv[3]!
const t0 = performance.now()
const memory = createMemory({ store: fileStore({ dir, timeoutMs: Infinity }) })
const thread = await memory.thread(id)
const t1 = performance.now()
const { messages, stats } = await thread.context()
const t2 = performance.now()
const items = (await thread.view()).length
globalThis.gc?.(); 
const mu = process.memoryUsage()
console.log(JSON.stringify({ open: t1-t0, ctx: t2-t1, messages: messages.length, viewItems: items, level: thread.level, tokens: stats.contextTokens, heapMiB: mu.heapUsed/2**20, rssMiB: mu.rss/2**20, peakMiB: process.resourceUsage().maxRSS/1024 }))
await memory.close()
