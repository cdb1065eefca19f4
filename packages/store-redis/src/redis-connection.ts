import { ErrorReply } from 'redis'
import type { LuaScript } from './lua-scripts'

/** A transaction being built: commands queued in order, then sent with MULTI … EXEC. */
interface SingleNodeMulti {
  addCommand(args: string[]): SingleNodeMulti
  exec(): Promise<unknown[]>
}

/** The same for a cluster client, whose commands name the key that routes them. */
interface ClusterMulti {
  addCommand(firstKey: string, isReadonly: boolean, args: string[]): ClusterMulti
  exec(): Promise<unknown[]>
}

/** The part of a standalone `redis` client the store uses. */
interface SingleNodeClient {
  sendCommand(args: string[]): Promise<unknown>
  multi(): SingleNodeMulti
  readonly isOpen: boolean
  connect(): Promise<unknown>
  close(): Promise<void>
}

/** The part of a `redis` cluster client the store uses. */
interface ClusterClient {
  sendCommand(firstKey: string, isReadonly: boolean, args: string[]): Promise<unknown>
  getSlotMaster(slot: number): unknown
  multi(routing: string): ClusterMulti
  readonly isOpen: boolean
  connect(): Promise<unknown>
  close(): Promise<void>
}

/** How the store talks to Redis: one command at a time, routed by its first key. */
export interface RedisConnection {
  /**
   * Sends a command to the node that owns `key`. A command that failed because the connection
   * dropped is sent again once the client has reconnected: every command the store sends is safe to
   * repeat (appends are idempotent by item id).
   */
  send(key: string, args: string[]): Promise<unknown>
  /**
   * Sends `commands` as one transaction (MULTI … EXEC) to the node that owns `key`, and returns each
   * command's reply, an error reply in place of a command that failed. Sent again after a dropped
   * connection, like `send`: the caller's transactions must be safe to repeat.
   */
  transaction(key: string, commands: string[][]): Promise<unknown[]>
  /** Runs a script with EVALSHA, loading it with EVAL when the server does not know it yet. */
  evaluate(script: LuaScript, keys: string[], args: string[]): Promise<unknown>
  /**
   * The same for a command already built as `['EVALSHA', script.sha1, numkeys, ...keys, ...args]`, so
   * that a caller with many arguments fills one array instead of two.
   */
  evaluateCommand(script: LuaScript, command: string[]): Promise<unknown>
  /** Closes the client if the store created it; a client passed in is left to its owner. */
  close(): Promise<void>
}

/** Attempts per command when the connection drops under it. */
const MAX_ATTEMPTS = 6
const RETRY_DELAY_MS = 25

/**
 * Errors after which the client will not come back by itself: the application closed it. Compared by
 * constructor name, so that another copy of `redis` in the tree is recognised too.
 */
const FINAL_ERRORS = new Set(['ClientClosedError', 'DisconnectsClientError'])

/** True for a reply of the Redis server (a script error, WRONGTYPE, NOSCRIPT…), as opposed to a lost connection. */
export function isErrorReply(error: unknown): error is Error {
  if (error instanceof ErrorReply) return true
  const name = (error as { constructor?: { name?: string } } | null)?.constructor?.name
  return name === 'ErrorReply' || name === 'SimpleError' || name === 'BlobError'
}

/** The error of a transaction in which some commands failed: it carries every command's reply. */
function transactionReplies(error: unknown): unknown[] | undefined {
  const replies = (error as { replies?: unknown } | null)?.replies
  const name = (error as { constructor?: { name?: string } } | null)?.constructor?.name
  return name === 'MultiErrorReply' && Array.isArray(replies) ? replies : undefined
}

/** True when the client was closed by the application and will not reconnect. */
export function isClosedClientError(error: unknown): boolean {
  const name = (error as { constructor?: { name?: string } } | null)?.constructor?.name
  return name !== undefined && FINAL_ERRORS.has(name)
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Wraps a client or cluster. `owned` clients are connected on first use and closed by `close()`.
 */
export function redisConnection(
  client: unknown,
  { owned, closeTimeoutMs = Number.POSITIVE_INFINITY }: { owned: boolean; closeTimeoutMs?: number },
): RedisConnection {
  const cluster = typeof (client as Partial<ClusterClient>).getSlotMaster === 'function'
  const raw: (key: string, args: string[]) => Promise<unknown> = cluster
    ? (key, args) => (client as ClusterClient).sendCommand(key, false, args)
    : (_key, args) => (client as SingleNodeClient).sendCommand(args)
  const node = client as SingleNodeClient | ClusterClient
  let connecting: Promise<unknown> | undefined
  let closed = false

  const ready = (): Promise<unknown> | undefined => {
    if (!owned || node.isOpen) return undefined
    connecting ??= node.connect()
    return connecting
  }

  /**
   * Runs `operation`, again after a dropped connection once the client is back; `otherwise` gets the
   * failure left after that. The usual case, a connected client and a reply, costs no more than the
   * operation's own promise: the retry loop is entered only after a failure.
   */
  const withRetries = <T>(
    operation: () => Promise<T>,
    otherwise?: (error: unknown) => Promise<T>,
  ): Promise<T> => {
    const opening = ready()
    let first: Promise<T>
    try {
      first = opening === undefined ? operation() : opening.then(operation)
    } catch (error) {
      first = Promise.reject(error)
    }
    // `otherwise` takes what the retries could not mend, in the same catch: no promise of its own on
    // the usual path.
    return first.catch((error: unknown) =>
      otherwise === undefined ? retryAfter(error, operation) : retryAfter(error, operation).catch(otherwise),
    )
  }

  const retryAfter = async <T>(failure: unknown, operation: () => Promise<T>): Promise<T> => {
    let error = failure
    for (let attempt = 1; ; attempt++) {
      // The client reconnects by itself and queues what is sent meanwhile; a command whose reply was
      // lost with the connection may or may not have run, and every command here can safely run twice.
      const retry =
        !closed &&
        !isErrorReply(error) &&
        !isClosedClientError(error) &&
        node.isOpen &&
        attempt < MAX_ATTEMPTS
      if (!retry) throw error
      await delay(RETRY_DELAY_MS * attempt)
      try {
        return await operation()
      } catch (next) {
        error = next
      }
    }
  }

  const send = (key: string, args: string[]): Promise<unknown> => withRetries(() => raw(key, args))

  const exec = async (key: string, commands: string[][]): Promise<unknown[]> => {
    let multi: SingleNodeMulti | ClusterMulti
    if (cluster) {
      const clusterMulti = (client as ClusterClient).multi(key)
      for (const args of commands) clusterMulti.addCommand(key, false, args)
      multi = clusterMulti
    } else {
      const nodeMulti = (client as SingleNodeClient).multi()
      for (const args of commands) nodeMulti.addCommand(args)
      multi = nodeMulti
    }
    try {
      return await multi.exec()
    } catch (error) {
      const replies = transactionReplies(error)
      if (replies === undefined) throw error
      return replies
    }
  }

  const evaluateCommand = (script: LuaScript, command: string[]): Promise<unknown> => {
    // The first key routes the command (on a cluster); EVALSHA first, EVAL with the source when the
    // server does not know the script (a reply of the server, which withRetries never retries).
    const key = command[3]!
    return withRetries(
      () => raw(key, command),
      (error: unknown) => {
        if (!isErrorReply(error) || !error.message.startsWith('NOSCRIPT')) throw error
        return send(key, ['EVAL', script.source, ...command.slice(2)])
      },
    )
  }

  return {
    send,
    transaction: (key, commands) => withRetries(() => exec(key, commands)),
    evaluate(script, keys, args) {
      const command = ['EVALSHA', script.sha1, String(keys.length), ...keys]
      for (const arg of args) command.push(arg)
      return evaluateCommand(script, command)
    },
    evaluateCommand,
    async close() {
      closed = true
      if (!owned) return
      const graceful = (async () => {
        if (connecting !== undefined) await connecting.catch(() => undefined)
        if (node.isOpen) await node.close()
      })()
      if (!Number.isFinite(closeTimeoutMs)) return graceful
      // A server that is down never answers the queued commands a graceful close waits for, and a
      // client still reconnecting would keep the process alive: past the deadline, it is destroyed.
      let timer: ReturnType<typeof setTimeout> | undefined
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), closeTimeoutMs)
      })
      const outcome = await Promise.race([graceful.then(() => 'closed' as const), late]).finally(() =>
        clearTimeout(timer),
      )
      if (outcome === 'late') {
        graceful.catch(() => undefined)
        ;(node as { destroy?: () => void }).destroy?.()
      }
    },
  }
}
