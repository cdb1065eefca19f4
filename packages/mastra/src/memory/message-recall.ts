import type { MastraDBMessage } from '@mastra/core/agent/message-list'
import type { StorageListMessagesInput } from '@mastra/core/storage'
import { type Item, invalidOptions, type StrataStore, shownValue } from '@strata-memory/core'
import { toDBMessages } from '../messages/db-messages'
import type { MastraThreadRecord } from '../threads/thread-record'
import { resolveLastMessages } from './last-messages'
import { pageOf, sameJson } from './thread-listing'

/** The Strata thread of a Mastra thread id, and its Mastra record when it was saved. */
export type RecordOf = (
  threadId: string,
) => Promise<{ strataId: string; record: MastraThreadRecord | undefined }>

type Include = NonNullable<StorageListMessagesInput['include']>[number]

/** The thread's items with seqs in `[fromSeq, toSeq]` (all without a range), active and archived, oldest first. */
async function itemsOf(store: StrataStore, strataId: string, range?: { fromSeq: number; toSeq: number }) {
  const [archived, active] = await Promise.all([
    store.readArchive(strataId, range),
    store.read(strataId, range),
  ])
  return [...archived, ...active].sort((a: Item, b: Item) => a.seq - b.seq)
}

/**
 * The paging of a `recall`, as Mastra's own memory pages: `perPage` (else `defaultPerPage`: the
 * `lastMessages` of the call or the memory, else 40); without `orderBy`, page 0 holds the newest
 * messages, oldest first (`newestFirst`); `orderBy` `ASC` pages from the oldest, `DESC` from the
 * newest with the newest first (`descending`).
 */
function checkArgs(args: StorageListMessagesInput, defaultPerPage: number) {
  const { page = 0, perPage = defaultPerPage, orderBy } = args
  if (!Number.isInteger(page) || page < 0)
    invalidOptions(`StrataMemory.recall(): page must be a whole number ≥ 0 (got ${shownValue(page)}).`)
  if (perPage !== false && (!Number.isInteger(perPage) || perPage < 0))
    invalidOptions(
      `StrataMemory.recall(): perPage must be a whole number ≥ 0 or false (got ${shownValue(perPage)}).`,
    )
  if (orderBy?.field !== undefined && orderBy.field !== 'createdAt')
    invalidOptions(
      `StrataMemory.recall(): messages are ordered by createdAt (got orderBy.field ${JSON.stringify(orderBy.field)}).`,
    )
  const descending = orderBy?.direction === 'DESC'
  return { page, perPage, descending, newestFirst: descending || orderBy === undefined }
}

/** How one thread or a list of messages is paged (see {@link checkArgs}). */
type Paging = { page: number; perPage: number; descending: boolean; newestFirst: boolean }

/** Items read before a page, to find the call of tool results that start it. */
const LOOKBACK = 8

/** A tool result: it joins its call's message, and a page never starts with it (see {@link windowPage}). */
const isResult = (item: Item | undefined) => item?.type === 'message' && item.role === 'tool'

/**
 * One page of one thread, read from the store a page at a time: page `p` holds the messages of the
 * thread's log positions (its items, seqs `1…lastSeq`) `p × perPage + 1 … (p + 1) × perPage`, counted
 * from the end when paging from the newest, each boundary moved back to the call when it falls on a
 * tool result (a call and its results are on one page, the call's tool invocation whole). `total` is
 * the log's length from the store's stored count (`head().lastSeq`): tool results joining their calls
 * and summaries or facts (memory, not messages) make a page hold at most `perPage` messages, give or
 * take a call moved with its results. Reads `perPage` items and the one after (and a few before when
 * the page starts with a tool result), whatever the thread's length.
 */
async function windowPage(
  store: StrataStore,
  strataId: string,
  owner: { threadId: string; resourceId: string },
  { page, perPage, descending, newestFirst }: Paging,
) {
  const { lastSeq } = await store.head(strataId)
  let fromSeq = newestFirst ? Math.max(1, lastSeq - (page + 1) * perPage + 1) : page * perPage + 1
  let toSeq = newestFirst ? lastSeq - page * perPage : Math.min(lastSeq, (page + 1) * perPage)
  let items: Item[] = []
  if (perPage > 0 && fromSeq <= toSeq) {
    // The page and the item after it; the few before it only when the page starts with a tool result.
    let read = await itemsOf(store, strataId, { fromSeq, toSeq: Math.min(lastSeq, toSeq + 1) })
    if (isResult(read[0]) && fromSeq > 1) {
      const before = await itemsOf(store, strataId, {
        fromSeq: Math.max(1, fromSeq - LOOKBACK),
        toSeq: fromSeq - 1,
      })
      read = [...before, ...read]
    }
    const bySeq = new Map(read.map((item) => [item.seq, item]))
    const moved = (boundary: number) => {
      while (isResult(bySeq.get(boundary)) && bySeq.has(boundary - 1)) boundary--
      return boundary
    }
    fromSeq = moved(fromSeq)
    if (toSeq < lastSeq) toSeq = moved(toSeq + 1) - 1
    items = read.filter((item) => item.seq >= fromSeq && item.seq <= toSeq)
  }
  const messages = toDBMessages(items, owner)
  if (descending) messages.reverse()
  const hasMore = perPage === 0 ? lastSeq > 0 : newestFirst ? fromSeq > 1 : toSeq < lastSeq
  return { messages, total: lastSeq, page, perPage, hasMore }
}

/** A page of messages sorted oldest first, paged as {@link checkArgs} says. */
function pageOfMessages(
  messages: MastraDBMessage[],
  { page, perPage, descending, newestFirst }: Omit<Paging, 'perPage'> & { perPage: number | false },
) {
  if (perPage === false || !newestFirst) {
    const { items, ...rest } = pageOf(descending ? messages.reverse() : messages, page, perPage)
    return { messages: items, ...rest }
  }
  const end = Math.max(0, messages.length - page * perPage)
  const items = messages.slice(Math.max(0, end - perPage), end)
  if (descending) items.reverse()
  return { messages: items, total: messages.length, page, perPage, hasMore: end - perPage > 0 }
}

const inRange = (
  message: MastraDBMessage,
  range: NonNullable<NonNullable<StorageListMessagesInput['filter']>['dateRange']>,
) => {
  const time = message.createdAt.getTime()
  const start = range.start?.getTime()
  const end = range.end?.getTime()
  if (start !== undefined && (range.startExclusive ? time <= start : time < start)) return false
  if (end !== undefined && (range.endExclusive ? time >= end : time > end)) return false
  return true
}

/** Every key of the filter equals (structurally) the message's `content.metadata` value. */
const metadataMatches = (message: MastraDBMessage, filter: Record<string, unknown>) =>
  Object.entries(filter).every(([key, value]) =>
    sameJson((message.content.metadata as Record<string, unknown> | undefined)?.[key], value),
  )

/**
 * Mastra's `recall`: the messages of the threads as Mastra stores them, filtered by `resourceId`
 * (another resource's thread finds nothing), ordered by `createdAt`, paginated. One thread without a
 * date or metadata filter is read a page at a time ({@link windowPage}); several threads, a filter or
 * `perPage: false` read the threads whole. `include` adds the named messages with their neighbours
 * (reading their thread).
 */
export async function recallMessages(
  store: StrataStore,
  recordOf: RecordOf,
  args: StorageListMessagesInput & { threadConfig?: { lastMessages?: unknown } },
  lastMessages?: unknown,
) {
  // `lastMessages: false` turns a run's history off; a page of recall keeps the default size.
  const pageSize = resolveLastMessages(lastMessages, args.threadConfig?.lastMessages, 'StrataMemory.recall()')
  const options = checkArgs(args, typeof pageSize === 'number' ? pageSize : 40)
  const threadIds = Array.isArray(args.threadId) ? args.threadId : [args.threadId]
  const owned: { threadId: string; strataId: string; resourceId: string }[] = []
  for (const threadId of threadIds) {
    const { strataId, record } = await recordOf(threadId)
    if (record === undefined) continue
    if (args.resourceId !== undefined && record.resourceId !== args.resourceId) continue
    owned.push({ threadId, strataId, resourceId: record.resourceId })
  }
  const range = args.filter?.dateRange
  const metadata = args.filter?.metadata as Record<string, unknown> | undefined
  let result: {
    messages: MastraDBMessage[]
    total: number
    page: number
    perPage: number | false
    hasMore: boolean
  }
  if (owned.length === 1 && range === undefined && metadata === undefined && options.perPage !== false) {
    const [{ strataId, ...owner }] = owned as [(typeof owned)[number]]
    result = await windowPage(store, strataId, owner, { ...options, perPage: options.perPage })
  } else {
    let messages: MastraDBMessage[] = []
    for (const { strataId, ...owner } of owned)
      messages.push(...toDBMessages(await itemsOf(store, strataId), owner))
    if (range !== undefined) messages = messages.filter((message) => inRange(message, range))
    if (metadata !== undefined) messages = messages.filter((message) => metadataMatches(message, metadata))
    messages.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    result = pageOfMessages(messages, options)
  }
  if (args.include === undefined || args.include.length === 0) return result
  const included = await includedMessages(store, recordOf, args.include, owned[0]?.threadId, args.resourceId)
  const seen = new Set(result.messages.map((message) => message.id))
  const extra: MastraDBMessage[] = []
  for (const message of included) {
    if (seen.has(message.id)) continue
    seen.add(message.id)
    extra.push(message)
  }
  if (extra.length === 0) return result
  const messages = [...result.messages, ...extra].sort(
    (a, b) => a.createdAt.getTime() - b.createdAt.getTime(),
  )
  if (options.descending) messages.reverse()
  return { ...result, messages }
}

/** The messages `include` names, each with `withPreviousMessages` before and `withNextMessages` after it. */
async function includedMessages(
  store: StrataStore,
  recordOf: RecordOf,
  include: readonly Include[],
  defaultThreadId: string | undefined,
  resourceId: string | undefined,
): Promise<MastraDBMessage[]> {
  const found: MastraDBMessage[] = []
  const threads = new Map<string, MastraDBMessage[]>()
  for (const { id, threadId = defaultThreadId, withPreviousMessages = 0, withNextMessages = 0 } of include) {
    if (threadId === undefined) continue
    let messages = threads.get(threadId)
    if (messages === undefined) {
      const { strataId, record } = await recordOf(threadId)
      messages =
        record === undefined || (resourceId !== undefined && record.resourceId !== resourceId)
          ? []
          : toDBMessages(await itemsOf(store, strataId), { threadId, resourceId: record.resourceId })
      threads.set(threadId, messages)
    }
    const at = messages.findIndex((message) => message.id === id)
    if (at < 0) continue
    found.push(...messages.slice(Math.max(0, at - withPreviousMessages), at + withNextMessages + 1))
  }
  return found
}
