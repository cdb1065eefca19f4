import type { MastraDBMessage } from '@mastra/core/agent/message-list'
import { type Item, type Memory, StrataError } from '@strata-memory/core'
import { memoryTools } from '@strata-memory/core/tools'
import { toDBMessages } from '../messages/db-messages'
import type { SemanticRecallSettings } from '../semantic-recall/semantic-recall-config'
import { readThreadRecord } from '../threads/thread-record'
import type { RecordOf } from './message-recall'

/** The item of seq `seq` of a thread, active or archived, or undefined. */
async function itemAt(memory: Memory, strataId: string, seq: number): Promise<Item | undefined> {
  const range = { fromSeq: seq, toSeq: seq }
  const [active, archived] = await Promise.all([
    memory.store.read(strataId, range),
    memory.store.readArchive(strataId, range),
  ])
  return active[0] ?? archived[0]
}

/**
 * Mastra's search (`recall` with `vectorSearchString`, as the server's `/memory/search` route and
 * Studio ask it): the `topK` best matches of `text` among the messages of a thread, or of every thread
 * of its resource (`scope: 'resource'`, when the thread is bound to one), ranked by Strata's
 * `memory_query` (BM25 over the words, archived turns included), as Mastra's stored messages, best
 * first. Messages of a thread of another resource than `resourceId` are never returned.
 */
export async function searchMessages(
  memory: Memory,
  recordOf: RecordOf,
  args: { threadId: string; resourceId: string | undefined; text: string },
  settings: Pick<SemanticRecallSettings, 'topK' | 'scope'>,
): Promise<MastraDBMessage[]> {
  const { strataId, record } = await recordOf(args.threadId)
  if (record === undefined || (args.resourceId !== undefined && record.resourceId !== args.resourceId))
    return []
  const resourceId = args.resourceId ?? record.resourceId
  const thread = await memory.thread(strataId)
  const scope = settings.scope === 'resource' && thread.resource !== undefined ? 'resource' : 'thread'
  const output = await memoryTools(thread).memory_query.execute({
    text: args.text,
    limit: Math.min(100, settings.topK * 3),
    scope,
  })
  if ('error' in output) throw new StrataError(output.error as ConstructorParameters<typeof StrataError>[0])
  const found: MastraDBMessage[] = []
  const seen = new Set<string>()
  /** The items of a thread by id, read once, for hits that name no seq (a thread-scope query's). */
  let ownItems: Map<string, Item> | undefined
  for (const hit of output.results) {
    if (found.length >= settings.topK) break
    if (
      hit.type !== 'message' ||
      (hit.where !== 'view' && hit.where !== 'out-of-view' && hit.where !== 'archive')
    )
      continue
    const hitThread = hit.threadId ?? strataId
    let item: Item | undefined
    if (hit.seq !== undefined) item = await itemAt(memory, hitThread, hit.seq)
    else {
      if (ownItems === undefined) {
        const all = [...(await memory.store.readArchive(strataId)), ...(await memory.store.read(strataId))]
        ownItems = new Map(all.map((entry) => [entry.id, entry]))
      }
      item = ownItems.get(hit.id)
    }
    if (item === undefined) continue
    const owner = hitThread === strataId ? record : await readThreadRecord(memory.store, hitThread)
    if (owner === undefined || owner.resourceId !== resourceId) continue
    for (const message of toDBMessages([item], { threadId: owner.threadId, resourceId })) {
      if (seen.has(message.id) || found.length >= settings.topK) continue
      seen.add(message.id)
      found.push(message)
    }
  }
  return found
}
