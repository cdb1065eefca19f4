// The baseline of `pnpm bench cli`: read a thread's log and parse every line, nothing else.
// node cli-read-baseline.mjs file <folder of the thread>
// node cli-read-baseline.mjs redis <url> <prefix> <threadId>
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const [kind, ...args] = process.argv.slice(2)
let parsed = 0
if (kind === 'file') {
  // The active log and the archive's data segments (archive/000001.jsonl, …; not its index).
  const segments = readdirSync(join(args[0], 'archive'))
    .filter((name) => /^\d+\.jsonl$/.test(name))
    .map((name) => join('archive', name))
  for (const name of ['raw_traces.jsonl', ...segments]) {
    for (const line of readFileSync(join(args[0], name), 'utf8').split('\n')) {
      if (line !== '' && JSON.parse(line).seq > 0) parsed++
    }
  }
} else {
  const { createClient, RESP_TYPES } = await import('redis')
  const [url, prefix, threadId] = args
  const client = createClient({ url, socket: { reconnectStrategy: false } })
  await client.connect()
  const key = `${prefix}:{${threadId}}:log`
  await client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }).get(`${prefix}:{${threadId}}:archived`)
  const length = await client.lLen(key)
  for (let start = 1; start < length; start += 5_000) {
    for (const element of await client.lRange(key, start, start + 4_999))
      if (JSON.parse(element).seq > 0) parsed++
  }
  await client.close()
}
process.stdout.write(`${parsed}\n`)
