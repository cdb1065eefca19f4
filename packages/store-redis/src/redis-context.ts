import type { ContentRecord } from '@strata-memory/core'
import { isPlainObject } from '@strata-memory/core/store-kit'
import type { LuaScript } from './lua-scripts'
import type { RedisConnection } from './redis-connection'
import { closedError, corruptError, storeError } from './redis-errors'
import { registryKey, type ThreadKeys, threadKeyList } from './thread-keys'

/**
 * What the parts of the Redis store share: the connection and the options, and the commands that turn
 * a failure into a typed error naming its key. One per store; `close()` makes every later command fail
 * with `STRATA_STORE_FAILED`.
 */
export interface RedisContext {
  readonly connection: RedisConnection
  /** The key prefix, without braces. */
  readonly prefix: string
  /** The ttl option as given (undefined: keys never expire). */
  readonly ttlSeconds: number | undefined
  /** The ttl as a script argument (`'0'`: no expiry). */
  readonly ttl: string
  /** The key of the thread registry, for listThreads. */
  readonly registry: string
  /** Throws `STRATA_STORE_FAILED` once the store is closed. */
  checkOpen(): void
  /** Sends one command and turns its failure into a Strata error naming `key`. */
  send(key: string, args: string[], threadId?: string): Promise<unknown>
  /** A write script's reply as strings, once it is not `corrupt`. */
  scriptReply(reply: unknown, threadId: string): string[]
  /** Runs a write script on a thread's keys and returns its reply. */
  run(script: LuaScript, threadId: string, keys: ThreadKeys, args: string[]): Promise<string[]>
  /**
   * Sends `commands` (on the thread's keys) as one transaction; a command that failed (WRONGTYPE on a
   * foreign value) is reported as corruption of its key, the command's second argument.
   */
  transaction(threadId: string, keys: ThreadKeys, commands: string[][]): Promise<unknown[]>
  /** Records that the thread has data, for listThreads (a separate key: never in a multi-key command). */
  register(threadId: string): Promise<unknown>
  /** A stored value parsed as JSON, or `STRATA_CORRUPT_LOG` naming its key. */
  parseJson(value: unknown, key: string, threadId: string): unknown
  /** A stored content record, or `STRATA_CORRUPT_LOG` naming its key. */
  parseRecord(value: unknown, key: string, threadId: string): ContentRecord
  /** Marks the store closed and closes the connection (when the store owns it). */
  close(): Promise<void>
}

/** The shared part of one Redis store. */
export function redisContext(
  connection: RedisConnection,
  { prefix, ttlSeconds }: { prefix: string; ttlSeconds: number | undefined },
): RedisContext {
  const ttl = String(ttlSeconds ?? 0)
  const registry = registryKey(prefix)
  let closed = false

  const checkOpen = (): void => {
    if (closed) throw closedError()
  }

  const send = async (key: string, args: string[], threadId?: string): Promise<unknown> => {
    checkOpen()
    try {
      return await connection.send(key, args)
    } catch (error) {
      throw storeError(error, prefix, key, args[0]!, threadId)
    }
  }

  const scriptReply = (reply: unknown, threadId: string): string[] => {
    const values = (reply as unknown[]).map(String)
    if (values[0] === 'corrupt') throw corruptError(prefix, values[1]!, values[2]!, threadId)
    return values
  }

  const run = async (script: LuaScript, threadId: string, keys: ThreadKeys, args: string[]) => {
    checkOpen()
    let reply: unknown
    try {
      reply = await connection.evaluate(script, threadKeyList(keys), args)
    } catch (error) {
      throw storeError(error, prefix, keys.log, 'EVALSHA', threadId)
    }
    return scriptReply(reply, threadId)
  }

  async function transaction(threadId: string, keys: ThreadKeys, commands: string[][]): Promise<unknown[]> {
    checkOpen()
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

  const register = (threadId: string) => send(registry, ['ZADD', registry, String(Date.now()), threadId])

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

  return {
    connection,
    prefix,
    ttlSeconds,
    ttl,
    registry,
    checkOpen,
    send,
    scriptReply,
    run,
    transaction,
    register,
    parseJson,
    parseRecord,
    async close(): Promise<void> {
      closed = true
      await connection.close()
    },
  }
}
