// One measurement of `pnpm bench scale`, in a process of its own so that nothing is warm and its peak
// memory is its own. Prints one JSON line: { ms, maxRssBytes, ... }. `ms` counts from after the
// imports (each side loads only what it uses; node's start-up is left out) to the end of the work.
// Plain JavaScript, not TypeScript: node runs a `.ts` file through its type stripper, which loads a
// WebAssembly compiler into the process (+17 MiB of resident memory at start-up), and every peak RSS
// figure of the bench carried it; an app runs compiled JavaScript. (`generate` still loads the
// TypeScript fixture writer: it is timed, not measured for memory.)
//   node scale-child.mjs open    <target> <threadId>           cold open + first context()
//   node scale-child.mjs bare    <target> <threadId>           bare read of the same log, every line parsed
//   node scale-child.mjs keep    <target> <threadId>           the bare read keeping every parsed line (a floor
//                                                             for an open that holds every item in memory)
//   node scale-child.mjs compact <target> <threadId> <budget>  first budget compaction until settled
//   node scale-child.mjs generate <size>                       writes the cached fixture of that size
// <target>: `file:<dir>` (a file store's dir) or `redis:<url>#<prefix>`.
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs'
import { join } from 'node:path'

const [mode, target = '', threadId = '', budgetArg] = process.argv.slice(2)

/**
 * This process's own peak resident memory. Linux keeps `getrusage`'s maxRSS across the fork and exec
 * that start a child, so a child of a bench holding 1 GiB reports at least 1 GiB: the high-water mark
 * of the process's own memory (`VmHWM`) is read instead, where there is one.
 */
function peakRssBytes() {
  try {
    const found = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))
    if (found !== null) return Number(found[1]) * 1024
  } catch {
    // Not Linux: getrusage's figure.
  }
  return process.resourceUsage().maxRSS * 1024
}
if (mode === 'generate') {
  const { writeFixture } = await import('./scale-cache.ts')
  const from = performance.now()
  await writeFixture(Number(target), (line) => console.error(line))
  process.stdout.write(`${JSON.stringify({ ms: performance.now() - from, maxRssBytes: peakRssBytes() })}\n`)
  process.exit(0)
}
const isFile = target.startsWith('file:')
// Strata's side loads core and its store; the bare side only the redis client (or nothing).
const bare = mode === 'bare' || mode === 'keep'
/** What the `keep` mode holds on to until the end. */
const kept = []
const parsedLine = (text) => {
  const value = JSON.parse(text)
  if (mode === 'keep') kept.push(value)
  return value !== null
}
const strata = bare ? undefined : await import('@strata-memory/core')
const stores = bare
  ? undefined
  : isFile
    ? { file: await import('@strata-memory/store-file') }
    : { redis: await import('@strata-memory/store-redis') }
const { createClient } = bare && !isFile ? await import('redis') : { createClient: undefined }
const started = performance.now()

/** The store a `<target>` names (see the top of this file). */
function storeOf(spec) {
  if (stores?.file) return stores.file.fileStore({ dir: spec.slice(5), timeoutMs: Number.POSITIVE_INFINITY })
  const [url, prefix] = spec.slice(6).split('#')
  return stores.redis.redisStore({ url, prefix, timeoutMs: Number.POSITIVE_INFINITY })
}

/** Reads every `.jsonl` file under the thread's folder (content records left out) and parses each line. */
function bareFile(folder) {
  let parsed = 0
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name)
    if (entry.isDirectory() && entry.name !== 'content') parsed += bareFile(path)
    else if (entry.isFile() && entry.name.endsWith('.jsonl')) {
      // A file is read whole and split, as this bench always has; one too long for a string, in pieces.
      if (statSync(path).size < WHOLE_READ_BYTES) {
        for (const line of readFileSync(path, 'utf8').split('\n'))
          if (line !== '' && parsedLine(line)) parsed++
      } else parsed += bareLines(path)
    }
  }
  return parsed
}

/** Files from this size are read in pieces: V8's strings end at 512 MiB. */
const WHOLE_READ_BYTES = 256 * 1024 * 1024
/** Bytes a bare read takes from a file at once. */
const BARE_PIECE = 4 * 1024 * 1024

/**
 * Parses every line of a `.jsonl` file, a 4 MiB piece at a time (a log past 512 MiB cannot be one
 * string): each piece's complete lines, the cut one carried to the next.
 */
function bareLines(path) {
  const fd = openSync(path, 'r')
  let parsed = 0
  try {
    let buffer = Buffer.allocUnsafe(BARE_PIECE)
    let carried = 0
    for (;;) {
      if (carried === buffer.length) {
        const larger = Buffer.allocUnsafe(buffer.length * 2)
        buffer.copy(larger, 0, 0, carried)
        buffer = larger
      }
      const got = readSync(fd, buffer, carried, buffer.length - carried, null)
      const end = carried + got
      let start = 0
      for (
        let newline = buffer.indexOf(10, start);
        newline !== -1 && newline < end;
        newline = buffer.indexOf(10, start)
      ) {
        const line = buffer.toString('utf8', start, newline)
        if (line !== '' && parsedLine(line)) parsed++
        start = newline + 1
      }
      if (got === 0) {
        const last = buffer.toString('utf8', start, end)
        if (last !== '' && parsedLine(last)) parsed++
        return parsed
      }
      buffer.copy(buffer, 0, start, end)
      carried = end - start
    }
  } finally {
    closeSync(fd)
  }
}

/** LRANGE of the thread's log list (every item, active or archived) in pages, each entry parsed. */
async function bareRedis(spec) {
  const [url, prefix] = spec.slice(6).split('#')
  const client = createClient({ url, socket: { reconnectStrategy: false } })
  await client.connect()
  const key = `${prefix}:{${threadId}}:log`
  const length = await client.lLen(key)
  let parsed = 0
  // Element 0 is the store's header.
  for (let start = 1; start < length; start += 5_000) {
    for (const entry of await client.lRange(key, start, start + 4_999)) if (parsedLine(entry)) parsed++
  }
  await client.close()
  return parsed
}

async function open() {
  const memory = strata.createMemory({ store: storeOf(target) })
  const thread = await memory.thread(threadId)
  const { messages, stats } = await thread.context()
  const ms = performance.now() - started
  await memory.close()
  return { ms, messages: messages.length, contextTokens: stats.contextTokens }
}

async function compact() {
  const budget = Number(budgetArg)
  const store = storeOf(target)
  const memory = strata.createMemory({ store, compaction: { budget: { inputTokens: budget } } })
  let compactions = 0
  let errors = 0
  memory.on('compaction-end', (event) => {
    compactions++
    if (event.error !== undefined) errors++
  })
  const thread = await memory.thread(threadId)
  const openMs = performance.now() - started
  const before = await store.head(threadId)
  // The write that finds the thread over its budget starts the compaction in the background.
  const from = performance.now()
  await thread.append({ role: 'user', content: 'Where were we? Please sum up the open tasks.' })
  for (let round = 0; round < 1_000; round++) {
    const seen = compactions
    await thread.settled()
    if (compactions === seen) break
  }
  const ms = performance.now() - from
  const { stats } = await thread.context()
  const after = await store.head(threadId)
  await memory.close()
  return {
    ms,
    openMs,
    compactions,
    errors,
    activeBefore: before.activeCount,
    activeAfter: after.activeCount,
    archivedAfter: after.archivedCount,
    contextTokens: stats.contextTokens,
  }
}

let result
if (mode === 'open') result = await open()
else if (mode === 'compact') result = await compact()
else if (bare) {
  const items = isFile ? bareFile(join(target.slice(5), 'agents', threadId)) : await bareRedis(target)
  result = { ms: performance.now() - started, items, kept: kept.length }
} else throw new Error(`scale-child: unknown mode ${mode}`)
process.stdout.write(`${JSON.stringify({ ...result, maxRssBytes: peakRssBytes() })}\n`)
