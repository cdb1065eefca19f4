import type { StoreFlags } from '@strata-memory/core'
import { isErrorReply, type RedisConnection } from './redis-connection'

/** What the store found out about the server's persistence; see {@link RedisPersistence}. */
export interface RedisPersistence {
  /**
   * `on`: the server writes an append-only file (`appendonly yes`) or RDB snapshots (`save` has
   * rules); `off`: neither, so a restart loses everything; `unknown`: the server refused
   * `CONFIG GET` (a managed Redis, an ACL without `+config`); `declared`: the `persistent` option
   * said so and nothing was asked.
   */
  state: 'on' | 'off' | 'unknown' | 'declared'
  /** `CONFIG GET appendonly`'s value, when read. */
  appendonly?: string
  /** `CONFIG GET save`'s value ('' for no snapshots), when read. */
  save?: string
  /** Why the state is `unknown`: the server's reply to `CONFIG GET`. */
  reason?: string
}

/** The value of one parameter in a `CONFIG GET` reply: RESP2 replies a flat list, RESP3 a map. */
function configValue(reply: unknown, name: string): string | undefined {
  if (Array.isArray(reply)) {
    for (let index = 0; index + 1 < reply.length; index += 2) {
      if (String(reply[index]) === name) return String(reply[index + 1])
    }
    return undefined
  }
  if (reply instanceof Map) {
    const value = reply.get(name)
    return value === undefined ? undefined : String(value)
  }
  if (reply !== null && typeof reply === 'object') {
    const value = (reply as Record<string, unknown>)[name]
    return value === undefined ? undefined : String(value)
  }
  return undefined
}

/**
 * Reads the server's persistence settings once (on the store's first call), and keeps
 * `flags.persistent` to what it found: true only when the server persists (`on`) or the app declared
 * it. On a cluster client, the node asked is the one owning `key`. A failed connection leaves the
 * check to the next call; a refused `CONFIG GET` settles it as `unknown`.
 */
export function persistenceCheck(
  connection: RedisConnection,
  key: string,
  flags: StoreFlags,
  declared: boolean | undefined,
): { ensure(): Promise<void> | undefined; persistence(): Promise<RedisPersistence> } {
  let found: RedisPersistence | undefined =
    declared === undefined ? undefined : { state: declared ? 'declared' : 'off' }
  let checking: Promise<RedisPersistence> | undefined

  const check = async (): Promise<RedisPersistence> => {
    try {
      const [appendonly, save] = await Promise.all([
        connection.send(key, ['CONFIG', 'GET', 'appendonly']),
        connection.send(key, ['CONFIG', 'GET', 'save']),
      ])
      const aof = configValue(appendonly, 'appendonly')
      const snapshots = configValue(save, 'save')
      const on = aof === 'yes' || (snapshots !== undefined && snapshots.trim() !== '')
      return { state: on ? 'on' : 'off', appendonly: aof, save: snapshots }
    } catch (error) {
      if (!isErrorReply(error)) throw error
      return { state: 'unknown', reason: error.message }
    }
  }

  const run = (): Promise<RedisPersistence> => {
    checking ??= check().then(
      (result) => {
        found = result
        flags.persistent = result.state === 'on' || result.state === 'declared'
        return result
      },
      (error: unknown) => {
        checking = undefined
        throw error
      },
    )
    return checking
  }

  return {
    ensure: () => (found === undefined ? run().then(() => undefined) : undefined),
    persistence: async () => found ?? run(),
  }
}
