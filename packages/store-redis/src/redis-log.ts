import {
  type ActivePagesOptions,
  type ArchiveOptions,
  assertThreadId,
  type Item,
  type ReadOptions,
  StrataError,
  type StrataStore,
  type ThreadHead,
} from '@strata-memory/core'
import {
  checkArchiveOptions,
  checkReadOptions,
  isPlainObject,
  leaseOfWrite,
  shareItemStrings,
} from '@strata-memory/core/store-kit'
import { ARCHIVE_SCRIPT, LOG_HEADER, READ_PLAN_SCRIPT } from './lua-scripts'
import { nextPageItems, pagesOf, planItems, READ_PAGE } from './read-pages'
import type { RedisContext } from './redis-context'
import { busyError, conflictError, corruptError, storeError } from './redis-errors'
import type { ThreadEpochs } from './thread-epochs'
import { type ThreadKeys, threadKeys } from './thread-keys'

/** True when a log element, parsed, is a Strata item of `seq` (what every read of the log checks). */
export const isItemOfSeq = (value: unknown, seq: number): value is Item =>
  isPlainObject(value) && value.seq === seq && typeof value.id === 'string'

/** Reads that find the thread deleted or re-created under them start over, at most this often. */
const MAX_READ_ATTEMPTS = 5

/** The store's reads of the active log and the archive, its counters, and the move to the archive. */
export function redisLog(
  context: RedisContext,
  epochs: ThreadEpochs,
): Pick<StrataStore, 'read' | 'readActivePages' | 'head' | 'archive' | 'readArchive'> {
  const { connection, prefix, ttl, checkOpen, scriptReply, run, transaction, parseJson } = context

  return {
    async read(threadId: string, options: ReadOptions = {}): Promise<Item[]> {
      assertThreadId(threadId)
      checkReadOptions(options, 'read')
      const keys = threadKeys(prefix, threadId)
      return readLog(threadId, keys, 'active', options)
    },

    async *readActivePages(
      threadId: string,
      options: ActivePagesOptions = {},
    ): AsyncIterable<readonly Item[]> {
      assertThreadId(threadId)
      const keys = threadKeys(prefix, threadId)
      for await (const page of pagesOfLog(threadId, keys, 'active', {}, options.onCount)) {
        if (page === RESTART) {
          throw new StrataError({
            code: 'STRATA_SEQ_CONFLICT',
            message: `Thread '${threadId}' was deleted or re-created while its active log was read a page at a time: the pages read are void; read it again.`,
            details: { threadId },
          })
        }
        yield page
      }
    },

    async head(threadId: string): Promise<ThreadHead> {
      assertThreadId(threadId)
      const keys = threadKeys(prefix, threadId)
      const startedAt = epochs.clock()
      const [header, length, archivedCount] = await transaction(threadId, keys, [
        ['LINDEX', keys.log, '0'],
        ['LLEN', keys.log],
        ['BITCOUNT', keys.archived],
      ])
      if (header !== null && !String(header).startsWith(LOG_HEADER)) {
        throw corruptError(prefix, keys.log, 'a list that is not a Strata log', threadId)
      }
      const lastSeq = Math.max(Number(length) - 1, 0)
      await epochs.observe(threadId, header === null ? '' : String(header), lastSeq, startedAt)
      return {
        lastSeq,
        activeCount: lastSeq - Number(archivedCount),
        archivedCount: Number(archivedCount),
      }
    },

    async archive(threadId: string, options: ArchiveOptions): Promise<number> {
      assertThreadId(threadId)
      const archiveOptions = checkArchiveOptions(options)
      const expectedSeq = archiveOptions.expectedSeq
      const lease = leaseOfWrite(options, 'archive') ?? ''
      // Seqs are whole numbers from 1; anything else names no item.
      const seqs = [...new Set(archiveOptions.seqs)].filter((seq) => Number.isSafeInteger(seq) && seq > 0)
      if (seqs.length === 0 && expectedSeq === undefined) return 0
      epochs.checkLost(threadId)
      const keys = threadKeys(prefix, threadId)
      const reply = await run(ARCHIVE_SCRIPT, threadId, keys, [
        expectedSeq === undefined ? '' : String(expectedSeq),
        ttl,
        lease,
        ...seqs.map(String),
      ])
      if (reply[0] === 'busy') throw busyError(threadId, Number(reply[1]))
      if (reply[0] === 'conflict') {
        if (epochs.knows(threadId)) await epochs.recheck(threadId)
        throw conflictError(threadId, expectedSeq!, Number(reply[1]))
      }
      return Number(reply[1])
    },

    async readArchive(threadId: string, options: ReadOptions = {}): Promise<Item[]> {
      assertThreadId(threadId)
      checkReadOptions(options, 'readArchive')
      const keys = threadKeys(prefix, threadId)
      return readLog(threadId, keys, 'archived', options)
    },
  }

  /**
   * The active or archived items in the range, a page at a time (see {@link pagesOfLog}). A thread
   * deleted (and maybe re-created) under the read starts it over.
   */
  async function readLog(
    threadId: string,
    keys: ThreadKeys,
    which: 'active' | 'archived',
    options: ReadOptions,
  ): Promise<Item[]> {
    for (let attempt = 1; ; attempt++) {
      const items: Item[] = []
      let whole = true
      for await (const page of pagesOfLog(threadId, keys, which, options)) {
        if (page === RESTART) {
          whole = false
          break
        }
        for (let index = 0; index < page.length; index++) items.push(page[index]!)
      }
      if (whole) return items
      if (attempt >= MAX_READ_ATTEMPTS) {
        throw new StrataError({
          code: 'STRATA_STORE_FAILED',
          message: `Thread '${threadId}' was deleted or re-created each time it was read (${MAX_READ_ATTEMPTS} times): retry the read.`,
          details: { threadId },
        })
      }
    }
  }

  /**
   * The active or archived items in the range, a page at a time: READ_PLAN_SCRIPT finds their seqs, as
   * runs of consecutive seqs, then each page's runs are read with LRANGE in one transaction and parsed
   * while the next page is fetched (a long log's elements are never all held as strings next to the
   * items made of them; a page is sized by the characters of the one before it, see `READ_PAGE`).
   * Items never move in the log, so the pages find them where the plan saw them, unless the thread
   * was deleted (and maybe re-created) meanwhile: the log's header, with its random epoch, tells, and
   * the generator gives {@link RESTART}.
   */
  async function* pagesOfLog(
    threadId: string,
    keys: ThreadKeys,
    which: 'active' | 'archived',
    { fromSeq, toSeq, limit }: ReadOptions,
    /** Told how many items the plan found, before the first page. */
    onCount?: (items: number) => void,
  ): AsyncGenerator<Item[] | typeof RESTART> {
    if (limit === 0) return
    // Seqs are whole numbers from 1 up to a safe integer; the bounds are cut to that range.
    const low = fromSeq === undefined || fromSeq < 1 ? 1 : Math.ceil(fromSeq)
    const high = toSeq === undefined || toSeq > Number.MAX_SAFE_INTEGER ? undefined : Math.floor(toSeq)
    if (low > Number.MAX_SAFE_INTEGER || (high !== undefined && high < low)) return
    const args = [
      String(low),
      high === undefined ? '' : String(high),
      limit === undefined ? '' : String(limit),
      which === 'active' ? '0' : '1',
    ]
    checkOpen()
    const startedAt = epochs.clock()
    let plan: string[]
    try {
      plan = scriptReply(
        await connection.evaluate(READ_PLAN_SCRIPT, [keys.log, keys.archived], args),
        threadId,
      )
    } catch (error) {
      throw storeError(error, prefix, keys.log, 'EVALSHA', threadId)
    }
    const header = plan[1]!
    await epochs.observe(threadId, header, Number(plan[2]), startedAt)
    if (onCount !== undefined) onCount(planItems(plan))
    let size = READ_PAGE.firstItems
    const pages = pagesOf(plan, () => size)
    let ahead = sendPage(threadId, keys, pages)
    while (ahead !== undefined) {
      const { page, replies } = ahead
      const reply = await replies
      // The next page is sent before this one is parsed: Redis reads and sends it meanwhile. Its size
      // comes from this page's characters, counted before any is parsed.
      size = nextPageItems(itemsOf(page), charsOf(reply))
      ahead = sendPage(threadId, keys, pages)
      const items = parsePage(threadId, keys, header, page, reply)
      if (items === undefined) {
        yield RESTART
        return
      }
      yield items
    }
  }

  /**
   * Sends the next page of `pages` (its runs, with LRANGE, behind LINDEX of the log's header, in one
   * transaction), or gives undefined after the last. A page sent ahead that the read never waits for
   * (it ended before) fails unheard.
   */
  function sendPage(
    threadId: string,
    keys: ThreadKeys,
    pages: Iterator<[number, number][]>,
  ): { page: [number, number][]; replies: Promise<unknown[]> } | undefined {
    const step = pages.next()
    if (step.done === true) return undefined
    const page = step.value
    const runs = page.map(([from, to]) => ['LRANGE', keys.log, String(from), String(to)])
    const replies = transaction(threadId, keys, [['LINDEX', keys.log, '0'], ...runs])
    replies.catch(() => undefined)
    return { page, replies }
  }

  /**
   * The items of a page's reply ({@link sendPage}), or undefined when the log's header is no longer
   * `header`. The reply's strings are let go as they are parsed: none is left for the pages' generator
   * to hold while its caller takes the items.
   */
  function parsePage(
    threadId: string,
    keys: ThreadKeys,
    header: string,
    page: readonly [number, number][],
    replies: unknown[],
  ): Item[] | undefined {
    const again = replies[0]
    if ((again === null ? '' : String(again)) !== header) return undefined
    const items: Item[] = []
    for (let run = 0; run < page.length; run++) {
      const [from, to] = page[run]!
      const members = replies[run + 1] as unknown[]
      if (members.length !== to - from + 1)
        throw corruptError(prefix, keys.log, 'fewer items than its seq counter says', threadId)
      for (let index = 0; index < members.length; index++) {
        const item = parseJson(members[index], keys.log, threadId)
        members[index] = undefined
        if (!isItemOfSeq(item, from + index)) {
          throw corruptError(prefix, keys.log, 'an element that is not the Strata item of its seq', threadId)
        }
        items.push(shareItemStrings(item as unknown as Item))
      }
    }
    return items
  }
}

/** Items in a page's runs. */
const itemsOf = (page: readonly [number, number][]) =>
  page.reduce((count, [from, to]) => count + to - from + 1, 0)

/** Characters of the elements in a page's reply (the LRANGE replies after the header). */
function charsOf(replies: readonly unknown[]): number {
  let chars = 0
  for (let run = 1; run < replies.length; run++) {
    const members = replies[run]
    if (!Array.isArray(members)) continue
    for (const member of members) chars += (member as { length?: number } | null)?.length ?? 0
  }
  return chars
}

/** What a page read gives when the thread was deleted or re-created under it: the read starts over. */
const RESTART: unique symbol = Symbol('restart')
