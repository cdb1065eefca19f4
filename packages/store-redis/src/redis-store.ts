import {
  invalidOptions,
  type StoreLeaseMethods,
  type StoreResourceMethods,
  type StoreSlotMethods,
  type StrataStore,
  shownValue,
} from '@strata-memory/core'
import type { StoreAuditMethods } from '@strata-memory/core/store-kit'
import { checkOptionKeys, isPlainObject, type OptionKeys } from '@strata-memory/core/store-kit'
import { createClient } from 'redis'
import { guardedCalls } from './call-deadline'
import { redisAppend } from './redis-append'
import { redisAudit } from './redis-audit'
import { type RedisConnection, redisConnection } from './redis-connection'
import { redisContent } from './redis-content'
import { redisContext } from './redis-context'
import { redisLease } from './redis-lease'
import { redisLog } from './redis-log'
import { persistenceCheck, type RedisPersistence } from './redis-persistence'
import { redisResources } from './redis-resources'
import { redisSlots } from './redis-slots'
import { redisThreads } from './redis-threads'
import { threadEpochs } from './thread-epochs'
import { checkPrefix, registryKey } from './thread-keys'

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
   * Starts every key: `<prefix>:{<threadId>}:log` and so on, `<prefix>:threads`, and a resource's
   * `<prefix>:res:{<resourceId>}:index` and so on. No braces.
   * @default 'strata'
   */
  prefix?: string
  /**
   * When set, every key of a thread expires this many seconds after the thread's last write (append,
   * archive, content, state); each write refreshes it for all of the thread's keys. Resources, and a
   * thread's binding and vectors, do not expire: `deleteResource` and `deleteThread` remove them.
   * @default undefined (never expires)
   */
  ttlSeconds?: number
  /**
   * Every call rejects with `STRATA_STORE_FAILED` (`details.reason: 'timeout'`) when Redis has not
   * answered it within this many milliseconds, instead of waiting for a server that is down. A write
   * that timed out may still land when the server answers (`details.mayHaveLanded`); repeating it is
   * safe, an append being recognised by its item ids. `Infinity`: no deadline.
   * @default 10000
   */
  timeoutMs?: number
  /**
   * Whether the data survives a restart of Redis, when the store may not ask the server (managed
   * Redis that refuses `CONFIG GET`). Left out, the store reads `appendonly` and `save` on its first
   * call, and `flags.persistent` is true only when one of them is on; see `persistence()`.
   * @default undefined (asked of the server)
   */
  persistent?: boolean
}

/**
 * A {@link StrataStore} on Redis with the lease, resources and slots (store contract `v2`), with `close()`
 * always present.
 */
export interface RedisStore extends StrataStore {
  getThreadResource: StoreResourceMethods['getThreadResource']
  setThreadResource: StoreResourceMethods['setThreadResource']
  touchResourceThread: StoreResourceMethods['touchResourceThread']
  listResourceThreads: StoreResourceMethods['listResourceThreads']
  getWorkingMemory: StoreResourceMethods['getWorkingMemory']
  setWorkingMemory: StoreResourceMethods['setWorkingMemory']
  putDocument: StoreResourceMethods['putDocument']
  getDocument: StoreResourceMethods['getDocument']
  deleteDocument: StoreResourceMethods['deleteDocument']
  listDocuments: StoreResourceMethods['listDocuments']
  deleteResource: StoreResourceMethods['deleteResource']
  putVectors: StoreResourceMethods['putVectors']
  readVectors: StoreResourceMethods['readVectors']
  acquireLease: StoreLeaseMethods['acquireLease']
  renewLease: StoreLeaseMethods['renewLease']
  releaseLease: StoreLeaseMethods['releaseLease']
  readLease: StoreLeaseMethods['readLease']
  audit: StoreAuditMethods['audit']
  getSlot: StoreSlotMethods['getSlot']
  setSlot: StoreSlotMethods['setSlot']
  /**
   * The server's persistence as the store found it on its first call (asked now if no call was made
   * yet): `on`, `off`, `unknown` (CONFIG GET refused) or `declared` (the `persistent` option). Until it
   * is known, and unless it is `on` or `declared`, `flags.persistent` is false.
   */
  persistence(): Promise<RedisPersistence>
  /** Closes the client the store created from `url`; a client passed in is left open. */
  close(): Promise<void>
}

/** The keys of {@link RedisStoreOptions}: a misspelt one (`prefx`) is refused, not ignored. */
const REDIS_STORE_OPTION_KEYS = {
  client: true,
  url: true,
  prefix: true,
  ttlSeconds: true,
  timeoutMs: true,
  persistent: true,
} as const satisfies OptionKeys<RedisStoreOptions>

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
  checkOptionKeys('redisStore()', options, REDIS_STORE_OPTION_KEYS)
  const { client, url, prefix = 'strata', ttlSeconds, timeoutMs = 10_000, persistent } = options
  if (client !== undefined && url !== undefined) {
    invalidOptions('redisStore: pass either client or url, not both.', { url })
  }
  checkPrefix(prefix)
  if (ttlSeconds !== undefined && !(Number.isSafeInteger(ttlSeconds) && ttlSeconds > 0)) {
    invalidOptions(
      `redisStore: ttlSeconds must be a whole number of seconds above 0, or left out for no expiry; got ${shownValue(ttlSeconds)}.`,
      { ttlSeconds },
    )
  }
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) {
    invalidOptions(
      `redisStore: timeoutMs must be a number of milliseconds above 0 (Infinity for no deadline); got ${shownValue(timeoutMs)}.`,
      { timeoutMs },
    )
  }
  if (persistent !== undefined && typeof persistent !== 'boolean') {
    invalidOptions('redisStore: persistent must be true or false, or left out to ask the server.', {
      persistent,
    })
  }
  const connection: RedisConnection =
    client === undefined
      ? redisConnection(
          createClient({ url: url ?? process.env.REDIS_URL ?? 'redis://localhost:6379' }).on('error', () => {
            // Connection errors reach the caller through the failing command; without a listener Node
            // would treat each reconnect attempt's error as fatal.
          }),
          { owned: true, closeTimeoutMs: timeoutMs },
        )
      : redisConnection(client, { owned: false })
  const context = redisContext(connection, { prefix, ttlSeconds })
  const { forgetThread, ...resourceMethods } = redisResources(context)
  const epochs = threadEpochs(context)
  const flags = {
    persistent: persistent === true,
    shared: true,
    leases: true,
    resources: true,
    audit: true,
    slots: true,
  }
  const { ensure, persistence } = persistenceCheck(connection, registryKey(prefix), flags, persistent)

  const store: RedisStore = {
    specificationVersion: 'v2',
    name: 'redis',
    flags,
    append: redisAppend(context, epochs),
    ...redisLease(context),
    ...redisLog(context, epochs),
    ...redisContent(context),
    ...redisThreads(context, { forgetThread, epochs }),
    ...redisSlots(context, epochs),
    ...resourceMethods,
    audit: redisAudit(context),
    persistence,
    close: context.close,
  }
  return guardedCalls(store, {
    timeoutMs,
    alongside: ensure,
    // A take that timed out still runs once Redis answers (queued while it was away, or on the wire
    // when it hung): its holder was told it failed and never releases it, so the thread would stay
    // busy until the lease lapsed. The same owner's release takes it back (a compare-and-delete).
    late: (name, args) => {
      if (name !== 'acquireLease') return
      const [threadId, options] = args as [string, { owner: string }]
      store.releaseLease(threadId, { owner: options.owner }).catch(() => undefined)
    },
  })
}
