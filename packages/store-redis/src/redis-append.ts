import { randomUUID } from 'node:crypto'
import {
  type AppendOptions,
  assertSerializable,
  assertThreadId,
  type Item,
  invalidOptions,
  StrataError,
  type UnsequencedItem,
} from '@strata-memory/core'
import {
  checkExpectedSeq,
  checkStoredSize,
  copyItem,
  isPlainObject,
  leaseOfWrite,
} from '@strata-memory/core/store-kit'
import { APPEND_SCRIPT } from './lua-scripts'
import { isErrorReply } from './redis-connection'
import type { RedisContext } from './redis-context'
import { busyError, conflictError, duplicateError, storeError } from './redis-errors'
import type { ThreadEpochs } from './thread-epochs'
import { appendKeys, gateKey } from './thread-keys'

/**
 * Appends whose JSON is at most this long go in one script call that carries the members; longer ones
 * in a transaction whose native RPUSHX carries them (see APPEND_SCRIPT), since Lua copies strings
 * slowly while the transaction costs a fixed amount more. Measured on Redis 7.0 with 1 KB items, the
 * two broke even between 4 and 16 items.
 */
const DIRECT_APPEND_MAX_CHARS = 8192

/** The store's `append`: one round trip for a batch, idempotent by item id (see APPEND_SCRIPT). */
export function redisAppend(
  context: RedisContext,
  epochs: ThreadEpochs,
): (threadId: string, items: readonly UnsequencedItem[], options: AppendOptions) => Promise<Item[]> {
  const { connection, prefix, ttlSeconds, ttl, checkOpen, scriptReply, register } = context

  /**
   * Appends in one EVALSHA of APPEND_SCRIPT that carries the members (`command`, built whole by the
   * caller); loads the script with EVAL when the server does not know it. A failed command is a Strata
   * error; the reply is `'ok'` or the script's other replies as strings.
   */
  const appendDirect = (threadId: string, command: string[]): Promise<string[] | 'ok'> => {
    checkOpen()
    return connection.evaluateCommand(APPEND_SCRIPT, command).then(
      (reply) => (Array.isArray(reply) ? scriptReply(reply, threadId) : 'ok'),
      (error: unknown) => {
        throw storeError(error, prefix, command[3]!, 'EVALSHA', threadId)
      },
    )
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
    checkOpen()
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

  return async function append(
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
    const lease = leaseOfWrite(options, 'append') ?? ''
    // A thread this store saw: lost history is reported, never started over at seq 1.
    epochs.checkLost(threadId)
    if (expectedSeq === 0 && epochs.knows(threadId)) await epochs.recheck(threadId)
    // The items as stored (their JSON with the seqs they get if the thread is still at expectedSeq,
    // which the script checks) and the items returned, both made before the first await.
    const { members, stored } = storedItems(items, expectedSeq)
    const count = members.length
    // The script's ARGV (see APPEND_SCRIPT): the lease owner, the ttl only with the keys it
    // refreshes, and an epoch for the log's header only where a log can start, at expectedSeq 0.
    const args = [String(expectedSeq), lease]
    if (ttlSeconds !== undefined) args.push(ttl)
    const epoch = expectedSeq === 0 ? randomUUID() : undefined
    if (epoch !== undefined) args.push(epoch)
    // Up to DIRECT_APPEND_MAX_CHARS of JSON the script carries the items; above, the transaction.
    let size = 0
    for (let index = 0; index < count; index++) size += members[index]!.length
    let writing: Promise<string[] | 'ok'>
    if (size > DIRECT_APPEND_MAX_CHARS) {
      for (let index = 0; index < count; index++) args.push(items[index]!.id, String(expectedSeq + index + 1))
      const gate = gateKey(prefix, threadId, randomUUID())
      writing = appendThroughGate(threadId, [...keys, gate], args, members, expectedSeq)
    } else {
      // The whole EVALSHA in one array: keys, ARGV, the (id, seq) pairs, the members.
      const command = ['EVALSHA', APPEND_SCRIPT.sha1, String(keys.length)]
      for (const key of keys) command.push(key)
      for (const arg of args) command.push(arg)
      for (let index = 0; index < count; index++)
        command.push(items[index]!.id, String(expectedSeq + index + 1))
      for (let index = 0; index < count; index++) command.push(members[index]!)
      writing = appendDirect(threadId, command)
    }
    // Only an append at expectedSeq 0 can create the thread (or re-create it after a delete or
    // expiry); it registers the thread first, in the same round trip, so the registry lists every
    // thread that has data. Later appends skip the extra command.
    const reply =
      count > 0 && expectedSeq === 0 ? (await Promise.all([register(threadId), writing]))[1] : await writing
    if (reply === 'ok') {
      if (count > 0) epochs.appended(threadId, expectedSeq + count, epoch)
      return stored
    }
    const [status, value] = reply
    if (status === 'busy') throw busyError(threadId, Number(value))
    if (status === 'conflict') {
      if (epochs.knows(threadId)) await epochs.recheck(threadId)
      throw conflictError(threadId, expectedSeq, Number(value))
    }
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
      if (count > 0) epochs.appended(threadId, stored.at(-1)!.seq, undefined)
    }
    return stored
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
  if (careful) for (const [index, item] of items.entries()) assertSerializable(item, `items[${index}]`)
  const members = new Array<string>(count)
  const stored = new Array<Item>(count)
  for (let index = 0; index < count; index++) {
    const seq = expectedSeq + index + 1
    const copy = copies[index]
    if (copy !== undefined) {
      // A copy has no seq of its own, so the one set here is its last key.
      copy.seq = seq
      const member = JSON.stringify(copy)
      checkStoredSize(member, items[index]!, index)
      members[index] = member
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
