import { randomUUID } from 'node:crypto'
import {
  type AppendOptions,
  type ArchiveOptions,
  assertSerializable,
  assertThreadId,
  type ContentQuery,
  type ContentRecord,
  checkArchiveOptions,
  checkContentQuery,
  checkContentRecord,
  checkExpectedSeq,
  checkReadOptions,
  checkState,
  compareContentNewestFirst,
  type Item,
  isValidThreadId,
  type JsonObject,
  matchesContentQuery,
  type ReadOptions,
  StrataError,
  type StrataStore,
  type ThreadHead,
  type UnsequencedItem,
} from '@strata-memory/core'
import { createClient } from 'redis'
import { copyItem } from './item-copy'
import {
  APPEND_SCRIPT,
  ARCHIVE_SCRIPT,
  LOG_HEADER,
  type LuaScript,
  PRUNE_REGISTRY_SCRIPT,
  PUT_CONTENT_SCRIPT,
  READ_PLAN_SCRIPT,
  SET_STATE_SCRIPT,
} from './lua-scripts'
import { isErrorReply, type RedisConnection, redisConnection } from './redis-connection'
import { invalidOptions, isPlainObject } from './store-arguments'
import {
  appendKeys,
  checkPrefix,
  gateKey,
  registryKey,
  type ThreadKeys,
  threadKeyList,
  threadKeys,
} from './thread-keys'

/**
 * A client (`createClient`, a `RedisClientType`) or Redis Cluster client (`createCluster`, a
 * `RedisClusterType`) from `redis` v5 or v6, with any modules, scripts, RESP version or type mapping.
 * Typed by the members the store uses, because the client types of `redis` differ for each of those
 * choices; the store sends its own commands with `sendCommand` (and transactions with `multi`) and reads
 * the raw replies.
 */
export interface RedisStoreClient {
  sendCommand(...args: never[]): Promise<unknown>
  multi(...args: never[]): unknown
  readonly isOpen: boolean
  connect(): Promise<unknown>
  close(): Promise<void>
}

/** Options of {@link redisStore}. Pass `client` or `url`, not both. */
export interface RedisStoreOptions {
  /**
   * A connected client or Redis Cluster client from `redis` v5 or v6 (see {@link RedisStoreClient}).
   * The store uses it as it is and never closes it.
   */
  client?: RedisStoreClient
  /**
   * Where to connect when no `client` is given; the store then creates, connects (on first use) and
   * closes its own client.
   * @default process.env.REDIS_URL, else 'redis://localhost:6379'
   */
  url?: string
  /**
   * Starts every key: `<prefix>:{<threadId>}:log` and so on, and `<prefix>:threads`. No braces.
   * @default 'strata'
   */
  prefix?: string
  /**
   * When set, every key of a thread expires this many seconds after the thread's last write (append,
   * archive, content, state); each write refreshes it for all of the thread's keys.
   * @default undefined (never expires)
   */
  ttlSeconds?: number
}

/** A {@link StrataStore} on Redis, with `close()` always present. */
export interface RedisStore extends StrataStore {
  /** Closes the client the store created from `url`; a client passed in is left open. */
  close(): Promise<void>
}

/**
 * Appends whose JSON is at most this long go in one script call that carries the members; longer ones
 * in a transaction whose native RPUSHX carries them (see APPEND_SCRIPT), since Lua copies strings
 * slowly while the transaction costs a fixed amount more. Measured on Redis 7.0 with 1 KB items, the
 * two broke even between 4 and 16 items.
 */
const DIRECT_APPEND_MAX_CHARS = 8192

/** Reads that find the thread deleted or re-created under them start over, at most this often. */
const MAX_READ_ATTEMPTS = 5

/** An empty thread found in the registry is removed from it only after this long, so a write under way is never unlisted. */
const PRUNE_AFTER_MS = 60_000

/**
 * A store on Redis or Redis Cluster, shared by any number of processes. Each thread's keys share the
 * hash tag `{<threadId>}`, so appends (seq check, seq assignment and write in one Lua script) and
 * archive moves are atomic on Cluster too. Appends are idempotent by item id: an append re-sent after
 * its reply was lost returns the items already stored instead of writing them twice.
 *
 * @example
 * const store = redisStore({ url: 'redis://localhost:6379', prefix: 'myapp', ttlSeconds: 86_400 })
 * const memory = createMemory({ store })
 * // …
 * await store.close()
 */
export function redisStore(options: RedisStoreOptions = {}): RedisStore {
  if (!isPlainObject(options as unknown)) invalidOptions('redisStore(options) needs an options object.', {})
  const { client, url, prefix = 'strata', ttlSeconds } = options
  if (client !== undefined && url !== undefined) {
    invalidOptions('redisStore: pass either client or url, not both.', { url })
  }
  checkPrefix(prefix)
  if (ttlSeconds !== undefined && !(Number.isSafeInteger(ttlSeconds) && ttlSeconds > 0)) {
    invalidOptions(
      `redisStore: ttlSeconds must be a whole number of seconds above 0, or left out for no expiry; got ${String(ttlSeconds)}.`,
      { ttlSeconds },
    )
  }
  const connection: RedisConnection =
    client === undefined
      ? redisConnection(
          createClient({ url: url ?? process.env.REDIS_URL ?? 'redis://localhost:6379' }).on('error', () => {
            // Connection errors reach the caller through the failing command; without a listener Node
            // would treat each reconnect attempt's error as fatal.
          }),
          { owned: true },
        )
      : redisConnection(client, { owned: false })
  const ttl = String(ttlSeconds ?? 0)
  const registry = registryKey(prefix)
  let closed = false

  /** Sends one command and turns its failure into a Strata error naming `key`. */
  const send = async (key: string, args: string[], threadId?: string): Promise<unknown> => {
    if (closed) throw closedError()
    try {
      return await connection.send(key, args)
    } catch (error) {
      throw storeError(error, prefix, key, args[0]!, threadId)
    }
  }

  /** A write script's reply as strings, once it is not `corrupt`. */
  const scriptReply = (reply: unknown, threadId: string): string[] => {
    const values = (reply as unknown[]).map(String)
    if (values[0] === 'corrupt') throw corruptError(prefix, values[1]!, values[2]!, threadId)
    return values
  }

  /** Runs a write script on a thread's keys and returns its reply. */
  const run = async (script: LuaScript, threadId: string, keys: ThreadKeys, args: string[]) => {
    if (closed) throw closedError()
    let reply: unknown
    try {
      reply = await connection.evaluate(script, threadKeyList(keys), args)
    } catch (error) {
      throw storeError(error, prefix, keys.log, 'EVALSHA', threadId)
    }
    return scriptReply(reply, threadId)
  }

  /**
   * Appends in one EVALSHA of APPEND_SCRIPT that carries the members; loads the script with EVAL
   * when the server does not know it. A failed command is a Strata error; the reply is `'ok'` or the
   * script's other replies as strings.
   */
  const appendDirect = async (threadId: string, keys: string[], args: string[]): Promise<string[] | 'ok'> => {
    if (closed) throw closedError()
    let reply: unknown
    try {
      reply = await connection.evaluate(APPEND_SCRIPT, keys, args)
    } catch (error) {
      throw storeError(error, prefix, keys[0]!, 'EVALSHA', threadId)
    }
    return Array.isArray(reply) ? scriptReply(reply, threadId) : 'ok'
  }

  /**
   * Appends one or more items in one transaction: APPEND_SCRIPT checks and indexes, then the members
   * go to the log through the gate the script opens (see APPEND_SCRIPT), as native RPUSHX arguments.
   */
  const appendThroughGate = async (
    threadId: string,
    keys: string[],
    args: string[],
    members: string[],
    expectedSeq: number,
  ): Promise<string[] | 'ok'> => {
    if (closed) throw closedError()
    const log = keys[0]!
    const gate = keys.at(-1)!
    const script = ['EVALSHA', APPEND_SCRIPT.sha1, String(keys.length), ...keys, ...args]
    const push = ['RPUSHX', gate]
    for (const member of members) push.push(member)
    const commands = [script, push, ['RENAME', gate, log]]
    let replies: unknown[]
    try {
      replies = await connection.transaction(log, commands)
      if (isErrorReply(replies[0]) && replies[0].message.startsWith('NOSCRIPT')) {
        // The gate stayed shut: nothing was written. Again with the script's source, which loads it.
        commands[0] = ['EVAL', APPEND_SCRIPT.source, ...script.slice(2)]
        replies = await connection.transaction(log, commands)
      }
    } catch (error) {
      throw storeError(error, prefix, log, 'MULTI', threadId)
    }
    if (isErrorReply(replies[0])) throw storeError(replies[0], prefix, log, 'EVALSHA', threadId)
    if (Array.isArray(replies[0])) return scriptReply(replies[0], threadId)
    // The gate was open: the items must be in the log, and the log back in its place.
    const length = expectedSeq + 1 + members.length
    if (Number(replies[1]) !== length || String(replies[2]) !== 'OK') {
      throw new StrataError({
        code: 'STRATA_STORE_FAILED',
        message: `Redis did not complete the append to '${log}' (RPUSHX replied ${String(replies[1])}, RENAME ${String(replies[2])}). Check the server's logs and retry.`,
        details: { key: log, threadId },
      })
    }
    return 'ok'
  }

  /** The thread of the last append, its id checked, with its keys for APPEND_SCRIPT. */
  let recentAppend: { threadId: string; keys: string[] } | undefined

  /** Records that the thread has data, for listThreads (a separate key: never in a multi-key command). */
  const register = (threadId: string) => send(registry, ['ZADD', registry, String(Date.now()), threadId])

  return {
    name: 'redis',
    flags: { persistent: true, shared: true },

    async append(
      threadId: string,
      items: readonly UnsequencedItem[],
      options: AppendOptions,
    ): Promise<Item[]> {
      // The thread id and its keys are checked and built once for a run of appends to one thread.
      let keys: string[]
      if (recentAppend !== undefined && recentAppend.threadId === threadId) {
        keys = recentAppend.keys
      } else {
        assertThreadId(threadId)
        keys = appendKeys(prefix, threadId, ttlSeconds !== undefined)
        recentAppend = { threadId, keys }
      }
      const expectedSeq = checkExpectedSeq(options?.expectedSeq, 'append', true)
      // The items as stored (their JSON with the seqs they get if the thread is still at expectedSeq,
      // which the script checks) and the items returned, both made before the first await.
      const { members, stored } = storedItems(items, expectedSeq)
      const count = members.length
      // The script's ARGV (see APPEND_SCRIPT): the ttl only with the keys it refreshes, and an epoch
      // for the log's header only where a log can start, at expectedSeq 0.
      const args = [String(expectedSeq)]
      if (ttlSeconds !== undefined) args.push(ttl)
      if (expectedSeq === 0) args.push(randomUUID())
      for (let index = 0; index < count; index++) args.push(items[index]!.id)
      // Up to DIRECT_APPEND_MAX_CHARS of JSON the script carries the items; above, the transaction.
      let size = 0
      for (let index = 0; index < count; index++) size += members[index]!.length
      let writing: Promise<string[] | 'ok'>
      if (size > DIRECT_APPEND_MAX_CHARS) {
        const gate = gateKey(prefix, threadId, randomUUID())
        writing = appendThroughGate(threadId, [...keys, gate], args, members, expectedSeq)
      } else {
        for (let index = 0; index < count; index++) args.push(members[index]!)
        writing = appendDirect(threadId, keys, args)
      }
      // Only an append at expectedSeq 0 can create the thread (or re-create it after a delete or
      // expiry); it registers the thread first, in the same round trip, so the registry lists every
      // thread that has data. Later appends skip the extra command.
      const reply =
        count > 0 && expectedSeq === 0 ? (await Promise.all([register(threadId), writing]))[1] : await writing
      if (reply === 'ok') return stored
      const [status, value] = reply
      if (status === 'conflict') throw conflictError(threadId, expectedSeq, Number(value))
      if (status === 'duplicate') throw duplicateError(threadId, value!)
      if (status === 'stored') {
        // A re-send: every id is stored. It is this append's reply lost only if each stored item is
        // the one sent, at the seq it was stored at (another than sent if re-sent with another
        // expectedSeq); seq is the last key either way, as in the stored JSON.
        for (let index = 0; index < count; index++) {
          const storedSeq = reply[1 + 2 * index]!
          const sentSeq = String(expectedSeq + index + 1)
          const sent = members[index]!
          const expected =
            storedSeq === sentSeq ? sent : `${sent.slice(0, -(sentSeq.length + 8))},"seq":${storedSeq}}`
          if (reply[2 + 2 * index] !== expected) throw duplicateError(threadId, items[index]!.id)
          stored[index]!.seq = Number(storedSeq)
        }
      }
      return stored
    },

    async read(threadId: string, options: ReadOptions = {}): Promise<Item[]> {
      assertThreadId(threadId)
      checkReadOptions(options, 'read')
      const keys = threadKeys(prefix, threadId)
      return readLog(threadId, keys, 'active', options)
    },

    async head(threadId: string): Promise<ThreadHead> {
      assertThreadId(threadId)
      const keys = threadKeys(prefix, threadId)
      const [header, length, archivedCount] = await transaction(threadId, keys, [
        ['LINDEX', keys.log, '0'],
        ['LLEN', keys.log],
        ['BITCOUNT', keys.archived],
      ])
      if (header !== null && !String(header).startsWith(LOG_HEADER)) {
        throw corruptError(prefix, keys.log, 'a list that is not a Strata log', threadId)
      }
      const lastSeq = Math.max(Number(length) - 1, 0)
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
      // Seqs are whole numbers from 1; anything else names no item.
      const seqs = [...new Set(archiveOptions.seqs)].filter((seq) => Number.isSafeInteger(seq) && seq > 0)
      if (seqs.length === 0 && expectedSeq === undefined) return 0
      const keys = threadKeys(prefix, threadId)
      const reply = await run(ARCHIVE_SCRIPT, threadId, keys, [
        expectedSeq === undefined ? '' : String(expectedSeq),
        ttl,
        ...seqs.map(String),
      ])
      if (reply[0] === 'conflict') throw conflictError(threadId, expectedSeq!, Number(reply[1]))
      return Number(reply[1])
    },

    async readArchive(threadId: string, options: ReadOptions = {}): Promise<Item[]> {
      assertThreadId(threadId)
      checkReadOptions(options, 'readArchive')
      const keys = threadKeys(prefix, threadId)
      return readLog(threadId, keys, 'archived', options)
    },

    async putContent(threadId: string, record: ContentRecord): Promise<void> {
      assertThreadId(threadId)
      checkContentRecord(record)
      assertSerializable(record, 'record')
      const keys = threadKeys(prefix, threadId)
      await Promise.all([
        register(threadId),
        run(PUT_CONTENT_SCRIPT, threadId, keys, [ttl, record.id, JSON.stringify(record)]),
      ])
    },

    async getContent(threadId: string, id: string): Promise<ContentRecord | undefined> {
      assertThreadId(threadId)
      if (typeof id !== 'string')
        invalidOptions('getContent(threadId, id) needs the memory id as a string.', {})
      const keys = threadKeys(prefix, threadId)
      const value = await send(keys.content, ['HGET', keys.content, id], threadId)
      return value === null ? undefined : parseRecord(value, keys.content, threadId)
    },

    async queryContent(threadId: string, query: ContentQuery = {}): Promise<ContentRecord[]> {
      assertThreadId(threadId)
      checkContentQuery(query)
      const keys = threadKeys(prefix, threadId)
      const values = (await send(keys.content, ['HVALS', keys.content], threadId)) as unknown[]
      const matches = values
        .map((value) => parseRecord(value, keys.content, threadId))
        .filter((record) => matchesContentQuery(record, query))
      matches.sort(compareContentNewestFirst)
      return matches.slice(0, query.limit ?? matches.length)
    },

    async getState(threadId: string): Promise<JsonObject | undefined> {
      assertThreadId(threadId)
      const keys = threadKeys(prefix, threadId)
      const value = await send(keys.state, ['GET', keys.state], threadId)
      if (value === null) return undefined
      const state = parseJson(value, keys.state, threadId)
      if (!isPlainObject(state))
        throw corruptError(prefix, keys.state, 'JSON that is not an object', threadId)
      return state as JsonObject
    },

    async setState(threadId: string, state: JsonObject): Promise<void> {
      assertThreadId(threadId)
      checkState(state)
      const keys = threadKeys(prefix, threadId)
      await Promise.all([
        register(threadId),
        run(SET_STATE_SCRIPT, threadId, keys, [ttl, JSON.stringify(state)]),
      ])
    },

    async listThreads(): Promise<string[]> {
      const reply = (await send(registry, ['ZRANGE', registry, '0', '-1', 'WITHSCORES'])) as unknown[]
      const now = Date.now()
      const listed = await Promise.all(
        registryEntries(reply).map(async ({ threadId, score }) => {
          // Entries are written by this store only; anything else there names no thread.
          if (!isValidThreadId(threadId)) return undefined
          const keys = threadKeys(prefix, threadId)
          const existing = await send(keys.log, ['EXISTS', keys.log, keys.content, keys.state], threadId)
          if (Number(existing) > 0) return threadId
          // Deleted, expired, or only a refused write: forget it once no write can still be under way.
          if (score < now - PRUNE_AFTER_MS) {
            await connection.evaluate(PRUNE_REGISTRY_SCRIPT, [registry], [threadId, String(score)])
          }
          return undefined
        }),
      )
      return listed.filter((threadId) => threadId !== undefined).sort()
    },

    async deleteThread(threadId: string): Promise<void> {
      assertThreadId(threadId)
      const keys = threadKeys(prefix, threadId)
      // Unregistered first: a writer re-creating the thread meanwhile registers it again, so the
      // registry never misses a thread that has data (it may name one that has none; listThreads checks).
      await send(registry, ['ZREM', registry, threadId])
      await send(keys.log, ['DEL', ...threadKeyList(keys)], threadId)
    },

    async close(): Promise<void> {
      closed = true
      await connection.close()
    },
  }

  /**
   * Sends `commands` (on the thread's keys) as one transaction; a command that failed (WRONGTYPE on a
   * foreign value) is reported as corruption of its key, the command's second argument.
   */
  async function transaction(threadId: string, keys: ThreadKeys, commands: string[][]): Promise<unknown[]> {
    if (closed) throw closedError()
    let replies: unknown[]
    try {
      replies = await connection.transaction(keys.log, commands)
    } catch (error) {
      throw storeError(error, prefix, keys.log, 'MULTI', threadId)
    }
    replies.forEach((reply, index) => {
      const [command, key] = commands[index]!
      if (reply instanceof Error) throw storeError(reply, prefix, key!, command!, threadId)
    })
    return replies
  }

  /**
   * The active or archived items in the range, in two round trips: READ_PLAN_SCRIPT finds their seqs,
   * as runs of consecutive seqs, then one transaction reads each run with LRANGE. Items never move in
   * the log, so the second finds them where the first saw them, unless the thread was deleted (and
   * maybe re-created) in between: the log's header, with its random epoch, tells, and the read starts
   * over.
   */
  async function readLog(
    threadId: string,
    keys: ThreadKeys,
    which: 'active' | 'archived',
    { fromSeq, toSeq, limit }: ReadOptions,
  ): Promise<Item[]> {
    if (limit === 0) return []
    // Seqs are whole numbers from 1 up to a safe integer; the bounds are cut to that range.
    const low = fromSeq === undefined || fromSeq < 1 ? 1 : Math.ceil(fromSeq)
    const high = toSeq === undefined || toSeq > Number.MAX_SAFE_INTEGER ? undefined : Math.floor(toSeq)
    if (low > Number.MAX_SAFE_INTEGER || (high !== undefined && high < low)) return []
    const args = [
      String(low),
      high === undefined ? '' : String(high),
      limit === undefined ? '' : String(limit),
      which === 'active' ? '0' : '1',
    ]
    for (let attempt = 1; ; attempt++) {
      if (closed) throw closedError()
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
      if (plan.length <= 2) return []
      const runs: string[][] = []
      const seqs: number[] = []
      for (let index = 2; index + 1 < plan.length; index += 2) {
        runs.push(['LRANGE', keys.log, plan[index]!, plan[index + 1]!])
        for (let seq = Number(plan[index]); seq <= Number(plan[index + 1]); seq++) seqs.push(seq)
      }
      const [again, ...chunks] = await transaction(threadId, keys, [['LINDEX', keys.log, '0'], ...runs])
      if ((again === null ? '' : String(again)) !== header) {
        if (attempt < MAX_READ_ATTEMPTS) continue
        throw new StrataError({
          code: 'STRATA_STORE_FAILED',
          message: `Thread '${threadId}' was deleted or re-created each time it was read (${MAX_READ_ATTEMPTS} times): retry the read.`,
          details: { threadId },
        })
      }
      const items: Item[] = []
      for (const chunk of chunks) {
        for (const member of chunk as unknown[]) {
          const seq = seqs[items.length]
          const item = parseJson(member, keys.log, threadId)
          if (!isPlainObject(item) || item.seq !== seq || typeof item.id !== 'string') {
            throw corruptError(
              prefix,
              keys.log,
              'an element that is not the Strata item of its seq',
              threadId,
            )
          }
          items.push(item as unknown as Item)
        }
      }
      if (items.length !== seqs.length)
        throw corruptError(prefix, keys.log, 'fewer items than its seq counter says', threadId)
      return items
    }
  }

  function parseJson(value: unknown, key: string, threadId: string): unknown {
    try {
      return JSON.parse(String(value))
    } catch {
      throw corruptError(prefix, key, 'a value that is not JSON', threadId)
    }
  }

  function parseRecord(value: unknown, key: string, threadId: string): ContentRecord {
    const record = parseJson(value, key, threadId)
    if (!isPlainObject(record) || typeof record.id !== 'string' || typeof record.data !== 'string') {
      throw corruptError(prefix, key, 'a field that is not a content record', threadId)
    }
    return record as unknown as ContentRecord
  }
}

/**
 * Each item as stored, its JSON with `seq` (the seq it gets if the thread is still at expectedSeq)
 * as the last key, and the item `append` returns, after the same checks as the in-memory store plus
 * one: every item needs an id, unique in the batch, since re-sent appends are recognised by id.
 *
 * The copy is made first and is what gets serialised, so the stored JSON and the returned item are
 * the same snapshot of the caller's object: later changes to it are neither stored nor returned.
 * Plain loops, and no Set for a single item: this runs on every append.
 */
function storedItems(
  items: readonly UnsequencedItem[],
  expectedSeq: number,
): { members: string[]; stored: Item[] } {
  if (!Array.isArray(items)) {
    invalidOptions('append(threadId, items, options) needs items as an array (use [] for none).', {})
  }
  const count = items.length
  const ids = count > 1 ? new Set<string>() : undefined
  // A loop rather than forEach, which skips holes: a hole in the array is no item either.
  for (let index = 0; index < count; index++) {
    const item = items[index]
    if (!isPlainObject(item)) invalidOptions(`append: items[${index}] must be an item object.`, { index })
    if (typeof item.id !== 'string' || item.id === '') {
      invalidOptions(`append: items[${index}].id must be a non-empty string, unique in the thread.`, {
        index,
      })
    }
    if (ids === undefined) continue
    if (ids.has(item.id)) {
      throw new StrataError({
        code: 'STRATA_DUPLICATE_ITEM_ID',
        message: `append: items[${index}].id '${item.id}' appears twice in one append: item ids must be unique. Nothing was written.`,
        details: { id: item.id, index },
      })
    }
    ids.add(item.id)
  }
  // copyItem checks the common shape of JSON in the same pass as it copies; for anything else
  // assertSerializable decides (and names the path of what cannot be stored), and the item takes the
  // careful path: serialised as it is, its copy parsed back from what was stored.
  const copies = new Array<Record<string, unknown> | undefined>(count)
  let careful = false
  for (let index = 0; index < count; index++) {
    const copy = copyItem(items[index]!)
    if (copy === undefined) careful = true
    copies[index] = copy
  }
  if (careful) assertSerializable(items, 'items')
  const members = new Array<string>(count)
  const stored = new Array<Item>(count)
  for (let index = 0; index < count; index++) {
    const seq = expectedSeq + index + 1
    const copy = copies[index]
    if (copy !== undefined) {
      // A copy has no seq of its own, so the one set here is its last key.
      copy.seq = seq
      members[index] = JSON.stringify(copy)
      stored[index] = copy as unknown as Item
      continue
    }
    const item = items[index]!
    if (Object.hasOwn(item, 'seq')) {
      const { seq: _assignedByTheStore, ...fields } = item as UnsequencedItem & { seq?: unknown }
      members[index] = withSeq(JSON.stringify(fields), seq)
    } else {
      members[index] = withSeq(JSON.stringify(item), seq)
    }
    stored[index] = JSON.parse(members[index]!) as Item
  }
  return { members, stored }
}

/** An item's JSON without `seq` with `seq` added last: the stored form of the careful path. */
function withSeq(body: string, seq: number): string {
  return `${body.slice(0, -1)},"seq":${seq}}`
}

/** `ZRANGE … WITHSCORES` as entries: RESP3 replies with pairs, RESP2 with a flat list. */
function registryEntries(reply: unknown[]): { threadId: string; score: number }[] {
  const entries: { threadId: string; score: number }[] = []
  if (reply.length > 0 && Array.isArray(reply[0])) {
    for (const pair of reply as unknown[][])
      entries.push({ threadId: String(pair[0]), score: Number(pair[1]) })
  } else {
    for (let index = 0; index + 1 < reply.length; index += 2) {
      entries.push({ threadId: String(reply[index]), score: Number(reply[index + 1]) })
    }
  }
  return entries
}

function closedError(): StrataError {
  return new StrataError({
    code: 'STRATA_STORE_FAILED',
    message: 'This Redis store is closed: create a new one with redisStore(…).',
  })
}

function conflictError(threadId: string, expectedSeq: number, actualSeq: number): StrataError {
  return new StrataError({
    code: 'STRATA_SEQ_CONFLICT',
    message: `Thread '${threadId}' is at seq ${actualSeq}, not the expected ${expectedSeq}: another writer changed it. Re-read the thread (head/read) and retry with expectedSeq ${actualSeq}.`,
    details: { threadId, expectedSeq, actualSeq },
  })
}

function duplicateError(threadId: string, id: string): StrataError {
  return new StrataError({
    code: 'STRATA_DUPLICATE_ITEM_ID',
    message: `Item id '${id}' is already stored in thread '${threadId}' by another append: item ids must be unique per thread (re-sending the very same append is fine and returns the stored items). Nothing was written.`,
    details: { threadId, id },
  })
}

function corruptError(prefix: string, key: string, what: string, threadId?: string): StrataError {
  return new StrataError({
    code: 'STRATA_CORRUPT_LOG',
    message: `Redis key '${key}' holds ${what}, which this store did not write: another program uses keys under the prefix '${prefix}'. Nothing was changed. Move that value away, or give Strata a prefix of its own (redisStore({ prefix })).`,
    details: { key, threadId },
  })
}

/** A failed command as a Strata error: a value of the wrong type is corruption, anything else a failure. */
function storeError(
  error: unknown,
  prefix: string,
  key: string,
  command: string,
  threadId?: string,
): StrataError {
  if (StrataError.isInstance(error)) return error
  const message = error instanceof Error ? error.message : String(error)
  if (isErrorReply(error) && message.startsWith('WRONGTYPE')) {
    return corruptError(prefix, key, 'a value of another type', threadId)
  }
  return new StrataError({
    code: 'STRATA_STORE_FAILED',
    message: `Redis ${command} on '${key}' failed: ${message}. Check that Redis is reachable and the client connected (client.connect()), then retry.`,
    cause: error,
    details: { key, command, threadId },
  })
}
