import type { RedisClientType } from 'redis'
import type { LogAudit } from './log-audit'

const CHUNK = 5_000
const LOG_HEADER = 'strata-log:1:'

/** The keys of a thread in the Redis store's layout (`<prefix>:{<threadId>}:…`). */
export function redisThreadKeys(prefix: string, threadId: string) {
  const base = `${prefix}:{${threadId}}:`
  return { log: `${base}log`, archived: `${base}archived`, content: `${base}content` }
}

/**
 * Reads a thread's Redis keys read-only (LRANGE in chunks, GET of the archive bitmap) and feeds its
 * items to the audit: element *seq* of the log must hold the item of that seq; a set bit *seq* of the
 * bitmap marks it archived.
 */
export async function readRedisLog(
  audit: LogAudit,
  client: RedisClientType,
  prefix: string,
  threadId: string,
  progress: (done: number, total: number) => void = () => undefined,
): Promise<number> {
  const keys = redisThreadKeys(prefix, threadId)
  const length = await client.lLen(keys.log)
  const { RESP_TYPES } = await import('redis')
  const bitmap = (await client
    .withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer })
    .get(keys.archived)) as Buffer | null
  const archived = (seq: number) => bitmap !== null && ((bitmap[seq >> 3] ?? 0) & (0x80 >> (seq & 7))) !== 0
  for (let start = 0; start < length; start += CHUNK) {
    const elements = await client.lRange(keys.log, start, start + CHUNK - 1)
    elements.forEach((element, offset) => {
      const index = start + offset
      const where = { file: keys.log, line: index }
      if (index === 0) {
        if (!element.startsWith(LOG_HEADER))
          audit.report('corrupt-line', `${keys.log}[0] is not the log header.`, where)
        return
      }
      let item: unknown
      try {
        item = JSON.parse(element)
      } catch {
        audit.report('corrupt-line', `${keys.log}[${index}] does not parse as JSON.`, where)
        return
      }
      if (typeof item !== 'object' || item === null || (item as { seq?: unknown }).seq !== index) {
        audit.report('corrupt-line', `${keys.log}[${index}] is not the item of seq ${index}.`, where)
        return
      }
      audit.add(archived(index) ? 'archive' : 'active', index, item as Record<string, unknown>, where)
    })
    progress(Math.min(length, start + CHUNK), length)
  }
  return length
}
