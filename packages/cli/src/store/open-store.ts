import { existsSync, statSync } from 'node:fs'
import {
  appThreadIdOf,
  createMemory,
  isValidThreadId,
  type Memory,
  StrataError,
  type StrataStore,
  toStoreThreadId,
} from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import type { RedisClientType } from 'redis'
import { CliError } from '../cli/cli-error'
import { firstLine } from '../config/load-config'
import type { StrataConfig } from '../config/strata-config'
import { describeStoreTarget, type StoreTarget } from './store-target'

/** An open store, and how to release it. */
export interface OpenStore {
  target: StoreTarget
  store: StrataStore
  close(): Promise<void>
}

/** Connects a Redis client that fails at once, rather than retrying, when the server is not there. */
export async function connectRedis(url: string): Promise<RedisClientType> {
  // Loaded only for a Redis store, so file store commands start faster; an optional peer.
  const { createClient } = await importRedisPackage(() => import('redis'))
  const client = createClient({
    url,
    socket: { reconnectStrategy: false, connectTimeout: 5_000 },
  }) as RedisClientType
  client.on('error', () => undefined)
  try {
    await client.connect()
  } catch (error) {
    const shown = new URL(url)
    if (shown.password !== '') shown.password = '***'
    throw new CliError(
      `Cannot connect to Redis at ${shown.toString()}: ${firstLine(error)}${hintOf(shown, error)}`,
    )
  }
  return client
}

/**
 * The Redis store and client are optional peers of the CLI (an app on the file store installs neither):
 * a Redis target without them is one line naming what to install, not a module-resolution stack.
 */
export async function importRedisPackage<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code
    const message = error instanceof Error ? error.message : ''
    if (code !== 'ERR_MODULE_NOT_FOUND' || !/'(redis|@strata-memory\/store-redis)'/.test(message)) throw error
    throw new CliError(
      'A Redis store needs the packages @strata-memory/store-redis and redis beside the CLI: ' +
        'npm install @strata-memory/store-redis redis (or use a file store: --store <folder>).',
    )
  }
}

/** Node's codes for a server certificate it does not trust (not the hostname's: that one says which). */
const UNTRUSTED_CERTIFICATE = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
])

/** What to do about a connection error whose cure is known: trusting a private CA, or speaking TLS. */
function hintOf(url: URL, error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  if (url.protocol === 'rediss:' && typeof code === 'string' && UNTRUSTED_CERTIFICATE.has(code)) {
    return ' (if a private CA signed the server certificate, run with NODE_EXTRA_CA_CERTS=<its PEM file>).'
  }
  if (url.protocol === 'redis:' && code === 'ECONNRESET') {
    return ' (if the server only speaks TLS, use a rediss:// URL).'
  }
  return ''
}

/**
 * Opens the store of a target. A file target whose folder does not exist is an error (the CLI never
 * creates an empty memory by looking at it), unless `create` is set (import).
 */
export async function openStore(
  target: StoreTarget,
  { create = false, timeoutMs }: { create?: boolean; timeoutMs?: number | undefined } = {},
): Promise<OpenStore> {
  const deadline = timeoutMs === undefined ? {} : { timeoutMs }
  if (target.kind === 'file') {
    if (!create && !(existsSync(target.dir) && statSync(target.dir).isDirectory())) {
      throw new CliError(`No memory folder at ${target.dir}: pass --store <folder> or set STRATA_MEMORY_DIR.`)
    }
    return { target, store: fileStore({ dir: target.dir, ...deadline }), close: async () => undefined }
  }
  const redis = await connectRedis(target.url)
  const { redisStore } = await importRedisPackage(() => import('@strata-memory/store-redis'))
  return {
    target,
    store: redisStore({ client: redis, prefix: target.prefix, ...deadline }),
    close: async () => {
      await redis.close()
    },
  }
}

/** A memory over the open store with the config's options. */
export function memoryOf(open: OpenStore, config: StrataConfig): Memory<string> {
  const { system: _system, ...options } = config
  try {
    return createMemory({ ...options, store: open.store })
  } catch (error) {
    throw new CliError(`Bad memory options: ${firstLine(error)}`)
  }
}

/** Checks a thread id before anything reads it: a path or other characters are a one-line error. */
export function checkThreadId(threadId: string): void {
  if (isValidThreadId(threadId)) return
  const why = /[/\\]/.test(threadId)
    ? 'a thread id is a name, not a path'
    : 'use 1–128 characters of A–Z a–z 0–9 _ . -, not starting with a dot'
  throw new CliError(`Bad thread id '${threadId}': ${why}.`)
}

/** The ids the user typed, by the store id each maps to. */
const typedIds = new Map<string, string>()

/**
 * How the CLI names a thread in what it prints: the app's own id (the one the user typed, or the one a
 * mapped store id spells), with the store's id beside it when they differ.
 */
export function shownThreadId(storeThreadId: string): string {
  const appThreadId = typedIds.get(storeThreadId) ?? appThreadIdOf(storeThreadId)
  return appThreadId === undefined || appThreadId === storeThreadId
    ? storeThreadId
    : `${appThreadId} (stored as ${storeThreadId})`
}

/**
 * The store thread id of the id a user typed: the app's own id (`user:42/chat:7`, what LangGraph or
 * Mastra was given) is mapped as the adapters map it (`toStoreThreadId`); a store id is itself, a
 * mapped one (`_.user_3A42`, as `strata threads` shows it) too.
 */
export async function storeThreadIdOf(threadId: string): Promise<string> {
  if (isValidThreadId(threadId)) return threadId
  try {
    const storeThreadId = await toStoreThreadId(threadId)
    if (storeThreadId !== threadId) typedIds.set(storeThreadId, threadId)
    return storeThreadId
  } catch (error) {
    if (!StrataError.isInstance(error, 'STRATA_INVALID_THREAD_ID')) throw error
    throw new CliError(
      `Bad thread id '${threadId}': give a non-empty thread id (the app's own id, or the store's).`,
    )
  }
}

/** Fails with a one-line error when the thread has never been written. */
export async function requireThread(open: OpenStore, threadId: string): Promise<void> {
  checkThreadId(threadId)
  const head = await open.store.head(threadId)
  if (head.lastSeq === 0) {
    throw new CliError(
      `Thread '${shownThreadId(threadId)}' not found in ${describeStoreTarget(open.target)}: \`strata threads\` lists the threads there.`,
    )
  }
}
