import type { MastraDBMessage } from '@mastra/core/agent/message-list'
import type { StorageListMessagesInput } from '@mastra/core/storage'
import type { Item, StrataStore } from '@strata-memory/core'
import { toDBMessages } from '../messages/db-messages'
import type { MastraThreadRecord } from '../threads/thread-record'
import { pageOf } from './thread-listing'

/** The Strata thread of a Mastra thread id, and its Mastra record when it was saved. */
export type RecordOf = (
  threadId: string,
) => Promise<{ strataId: string; record: MastraThreadRecord | undefined }>

/** Every item the thread ever held, active and archived, oldest first. */
async function allItems(store: StrataStore, strataId: string): Promise<Item[]> {
  const [archived, active] = await Promise.all([store.readArchive(strataId), store.read(strataId)])
  return [...archived, ...active].sort((a, b) => a.seq - b.seq)
}

/**
 * Mastra's `recall`: the messages of the threads as Mastra stores them, filtered by `resourceId`
 * (another resource's thread finds nothing) and `filter.dateRange`, ordered, paginated.
 */
export async function recallMessages(store: StrataStore, recordOf: RecordOf, args: StorageListMessagesInput) {
  const threadIds = Array.isArray(args.threadId) ? args.threadId : [args.threadId]
  let messages: MastraDBMessage[] = []
  for (const threadId of threadIds) {
    const { strataId, record } = await recordOf(threadId)
    if (record === undefined) continue
    if (args.resourceId !== undefined && record.resourceId !== args.resourceId) continue
    messages.push(
      ...toDBMessages(await allItems(store, strataId), { threadId, resourceId: record.resourceId }),
    )
  }
  const range = args.filter?.dateRange
  if (range !== undefined) {
    messages = messages.filter((message) => {
      const time = message.createdAt.getTime()
      const start = range.start?.getTime()
      const end = range.end?.getTime()
      if (start !== undefined && (range.startExclusive ? time <= start : time < start)) return false
      if (end !== undefined && (range.endExclusive ? time >= end : time > end)) return false
      return true
    })
  }
  if (args.orderBy?.direction === 'DESC') messages.reverse()
  const { items, ...page } = pageOf(messages, args.page, args.perPage ?? 40)
  return { messages: items, ...page }
}
