import { assertThreadId, type Item, StrataError } from '@strata-memory/core'
import {
  type AuditOptions,
  type AuditReport,
  auditWithRepair,
  checkAuditOptions,
  ThreadAuditor,
} from '@strata-memory/core/store-kit'
import { READ_PLAN_SCRIPT } from './lua-scripts'
import type { RedisContext } from './redis-context'
import { storeError } from './redis-errors'
import { isItemOfSeq } from './redis-log'
import { threadKeys } from './thread-keys'

/** Log elements read at once. */
const CHUNK = 5_000

/**
 * The Redis store's audit (`flags.audit`): reads a thread's log read-only with the store's own reads
 * (READ_PLAN_SCRIPT, which checks the log's header, for the archived seqs; LRANGE a chunk at a time,
 * each element checked as `read` checks it) and feeds a {@link ThreadAuditor}. There is nothing to
 * repair: every write is one atomic script, so a log is never torn or half archived; `repair` audits.
 */
export function redisAudit(
  context: RedisContext,
): (threadId: string, options?: AuditOptions) => Promise<AuditReport> {
  const { connection, prefix, registry, scriptReply, send, checkOpen } = context

  /** The archived seqs as `[from, to]` runs, ascending, and the last seq; undefined for a corrupt log. */
  const archivedRuns = async (threadId: string, log: string, archived: string) => {
    checkOpen()
    try {
      const reply = await connection.evaluate(READ_PLAN_SCRIPT, [log, archived], ['1', '', '', '1'])
      const plan = scriptReply(reply, threadId)
      const runs: [number, number][] = []
      for (let index = 3; index + 1 < plan.length; index += 2)
        runs.push([Number(plan[index]), Number(plan[index + 1])])
      return { last: Number(plan[2]), runs }
    } catch (error) {
      const failure = StrataError.isInstance(error)
        ? error
        : storeError(error, prefix, log, 'EVALSHA', threadId)
      if (StrataError.isInstance(failure, 'STRATA_CORRUPT_LOG')) return undefined
      throw failure
    }
  }

  /** Which cited ids have a record: in the thread's content, else (shared with a sub-agent) in another thread's. */
  const contentFound = async (threadId: string, ids: string[]): Promise<boolean[]> => {
    const own = threadKeys(prefix, threadId).content
    const found = ((await send(own, ['HMGET', own, ...ids], threadId)) as unknown[]).map(
      (value) => value !== null,
    )
    if (found.every(Boolean)) return found
    const others = ((await send(registry, ['ZRANGE', registry, '0', '-1'])) as unknown[]).map(String)
    for (const other of others) {
      if (other === threadId || found.every(Boolean)) continue
      const key = threadKeys(prefix, other).content
      const values = (await send(key, ['HMGET', key, ...ids], other)) as unknown[]
      values.forEach((value, index) => {
        if (value !== null) found[index] = true
      })
    }
    return found
  }

  return async (threadId, options) => {
    assertThreadId(threadId)
    const { repair, checks, onItem, onItemJson, onProgress } = checkAuditOptions(options)
    const keys = threadKeys(prefix, threadId)
    const once = async (): Promise<AuditReport> => {
      const auditor = new ThreadAuditor(threadId, [], { checks })
      const plan = await archivedRuns(threadId, keys.log, keys.archived)
      if (plan === undefined) {
        auditor.report('corrupt-line', `${keys.log}[0] is not the log header.`, { file: keys.log, line: 0 })
        return auditor.result()
      }
      const { last, runs } = plan
      let run = 0
      const isArchived = (seq: number) => {
        while (run < runs.length && runs[run]![1] < seq) run++
        return run < runs.length && runs[run]![0] <= seq
      }
      for (let start = 1; start <= last; start += CHUNK) {
        const end = Math.min(last, start + CHUNK - 1)
        const elements = (await send(
          keys.log,
          ['LRANGE', keys.log, String(start), String(end)],
          threadId,
        )) as unknown[]
        elements.forEach((element, offset) => {
          const seq = start + offset
          const where = { file: keys.log, line: seq }
          let item: unknown
          try {
            item = JSON.parse(String(element))
          } catch {
            auditor.report('corrupt-line', `${keys.log}[${seq}] does not parse as JSON.`, where)
            return
          }
          if (!isItemOfSeq(item, seq)) {
            auditor.report('corrupt-line', `${keys.log}[${seq}] is not the item of seq ${seq}.`, where)
            return
          }
          const source = isArchived(seq) ? 'archive' : 'active'
          auditor.add(source, item as Item, where)
          onItem?.(item as Item, source, () => JSON.stringify(item))
          onItemJson?.(seq, source, JSON.stringify(item))
        })
        onProgress?.(end, last)
      }
      auditor.finish()
      await auditor.checkContent((ids) => contentFound(threadId, ids))
      return auditor.result()
    }
    return auditWithRepair(once, repair, async () => undefined)
  }
}
