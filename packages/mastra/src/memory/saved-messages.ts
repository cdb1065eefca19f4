import { type MastraDBMessage, MessageList } from '@mastra/core/agent/message-list'
import { type Item, type JsonObject, StrataError, type StrataStore } from '@strata-memory/core'
import { type MessageOwner, toDBMessages } from '../messages/db-messages'
import { plainMetadata } from '../threads/mastra-thread'

/** The text a message shows, its text parts joined (what an edit of it changes). */
const textOf = (message: MastraDBMessage): string =>
  message.content.parts
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('')
    .concat(typeof message.content.content === 'string' ? message.content.content : '')

/**
 * The messages of `list` the thread does not hold yet, as the model messages to append, each one's
 * first with what the model message has no field for under `meta.mastra` (see {@link savedMeta}), so
 * `recall` gives it back as it was saved. Mastra's own
 * storages upsert by id; a Strata thread is append-only. A message whose id the thread holds (an import
 * run again, messages read by `recall` and saved back) is not stored twice; one whose text changed is
 * refused, `STRATA_INVALID_MESSAGE` (`details.reason: 'already-stored'`), before anything is stored.
 * Reads the thread's active log, not its archive (an agent network saves through here on every
 * request): a message compaction or a rewind moved to the archive is not recognised there.
 */
export async function messagesToSave(
  store: StrataStore,
  strataId: string,
  owner: MessageOwner,
  list: readonly MastraDBMessage[],
): Promise<unknown[]> {
  const active: readonly Item[] = await store.read(strataId)
  const held = new Map(toDBMessages(active, owner).map((message) => [message.id, message]))
  const models: unknown[] = []
  for (const message of list) {
    const stored = held.get(message.id)
    if (stored !== undefined) {
      if (textOf(stored) === textOf(message)) continue
      throw new StrataError({
        code: 'STRATA_INVALID_MESSAGE',
        message: `StrataMemory.saveMessages(): message '${message.id}' is already stored in thread '${owner.threadId}', with other text. A Strata thread is append-only: a stored message is never replaced, and nothing was stored. To replace an answer and what followed it, rewind the thread (await (await memory.thread(threadId)).rewind({ afterSeq })), or save the edit under a new id.`,
        details: { reason: 'already-stored', messageId: message.id, threadId: owner.threadId },
      })
    }
    const converted = new MessageList({ threadId: owner.threadId })
      .add([message], 'memory')
      .get.all.aiV5.model()
    const [first, ...rest] = converted
    if (first !== undefined) models.push({ ...first, meta: { mastra: savedMeta(message) } }, ...rest)
    held.set(message.id, message)
  }
  return models
}

/**
 * What a saved message keeps beside its model message, under `meta.mastra`: its id, its `createdAt`
 * (epoch milliseconds; the item's own `ts` is when it was stored) and its `content.metadata` but
 * Strata's own key, as JSON keeps them (Mastra's database storages store both as JSON too). A
 * metadata JSON cannot hold is `STRATA_NOT_SERIALIZABLE`, before its thread's messages are stored.
 */
function savedMeta(message: MastraDBMessage): JsonObject {
  const meta: JsonObject = { id: message.id }
  const createdAt = message.createdAt instanceof Date ? message.createdAt.getTime() : Number.NaN
  if (Number.isFinite(createdAt)) meta.createdAt = createdAt
  const { strata: _readFromTheLog, ...metadata } = (message.content.metadata ?? {}) as Record<string, unknown>
  if (Object.keys(metadata).length === 0) return meta
  try {
    const kept = plainMetadata(metadata)
    if (kept !== undefined) meta.metadata = kept
  } catch (error) {
    throw new StrataError({
      code: 'STRATA_NOT_SERIALIZABLE',
      message: `StrataMemory.saveMessages(): the content.metadata of message '${message.id}' cannot be stored as JSON (${String(error)}). Nothing of thread '${message.threadId}' was stored.`,
      details: { path: 'content.metadata', messageId: message.id },
    })
  }
  return meta
}
