import type { Item, Memory, MessageItem, Resource, ResourceQueryHit, Thread } from '@strata-memory/core'
import { capStart } from '../memory/last-messages'
import { readThreadRecord } from '../threads/thread-record'
import { UPDATE_WORKING_MEMORY_TOOL } from '../working-memory/working-memory-prompt'
import type { SemanticRecallSettings } from './semantic-recall-config'

/** The most hits `resource.query` gives at once. */
const QUERY_LIMIT = 100

/** The ids of every thread of `resource`, its pages read in turn. */
async function resourceThreadIds(resource: Resource): Promise<string[]> {
  const ids: string[] = []
  let cursor: string | undefined
  do {
    const page = await resource.listThreads(cursor === undefined ? {} : { cursor })
    for (const entry of page.threads) ids.push(entry.threadId)
    cursor = page.cursor
  } while (cursor !== undefined)
  return ids
}

/** The most characters of one recalled message shown. */
const MESSAGE_CHARS = 600
/** Seqs read on each side of a match per message wanted: tool steps and summaries sit between messages. */
const SEQS_PER_MESSAGE = 8

/** A message as one line of the recall: its role and its text (tool steps named, not shown). */
function messageLine(item: MessageItem): string {
  const text = item.content
    .map((part) => {
      if (part.type === 'text') return part.text
      if (part.type === 'tool-call') return `[called ${part.toolName}]`
      if (part.type === 'tool-result') return `[result of ${part.toolName}]`
      return ''
    })
    .filter((piece) => piece.length > 0)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim()
  const clipped = text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS)} …` : text
  return `${item.role}: ${clipped}`
}

/**
 * A message worth recalling: not a system message, not a scope's opening said again after the tool
 * result that opened it (`continuedFrom`: the same text as the opening before it), and not only the
 * agent keeping its working memory (an `updateWorkingMemory` call or its result: the working memory
 * itself is shown).
 */
const isMessage = (item: Item): item is MessageItem =>
  item.type === 'message' &&
  item.role !== 'system' &&
  item.scope?.continuedFrom === undefined &&
  !item.content.every(
    (part) =>
      (part.type === 'tool-call' || part.type === 'tool-result') &&
      part.toolName === UPDATE_WORKING_MEMORY_TOOL,
  )

/** The messages around seq `seq` of a thread (active log and archive): `before` before it, `after` after it. */
async function neighbours(memory: Memory, threadId: string, seq: number, settings: SemanticRecallSettings) {
  const range = {
    fromSeq: Math.max(1, seq - (settings.before + 1) * SEQS_PER_MESSAGE),
    toSeq: seq + (settings.after + 1) * SEQS_PER_MESSAGE,
  }
  const [active, archived] = await Promise.all([
    memory.store.read(threadId, range),
    memory.store.readArchive(threadId, range),
  ])
  const items = [...archived, ...active].sort((a, b) => a.seq - b.seq)
  const at = items.findIndex((item) => item.seq === seq)
  if (at < 0) return []
  const earlier = settings.before === 0 ? [] : items.slice(0, at).filter(isMessage).slice(-settings.before)
  const later = items
    .slice(at + 1)
    .filter(isMessage)
    .slice(0, settings.after)
  const hit = items[at]!
  return [...earlier, ...(isMessage(hit) ? [hit] : []), ...later]
}

/**
 * The seqs of `view` the prompt shows. Without a `lastMessages` cap, all of them. With one, as
 * `capMessages` cuts the prompt (see `capStart`): the view as the prompt's conversation (its messages,
 * and its transitions and summaries, each a user message there), then the request at its end unless
 * the thread stored it already (`request`, its text). Items the conversation does not hold are shown;
 * a message the cap cuts is not, so it may be recalled.
 */
export function shownSeqs(view: readonly Item[], request: string, cap: number | undefined): Set<number> {
  if (cap === undefined) return new Set(view.map((item) => item.seq))
  const shown = new Set<number>()
  const conversation: { role: string; seq?: number }[] = []
  for (const item of view) {
    if (item.type === 'message' && item.role !== 'system')
      conversation.push({ role: item.role, seq: item.seq })
    else if (item.type === 'transition' || item.type === 'summary')
      conversation.push({ role: 'user', seq: item.seq })
    else shown.add(item.seq)
  }
  const last = view.at(-1)
  const stored = last?.type === 'message' && last.role === 'user' && textOf(last) === request
  if (!stored) conversation.push({ role: 'user' })
  for (let index = capStart(conversation, cap); index < conversation.length; index++) {
    const { seq } = conversation[index]!
    if (seq !== undefined) shown.add(seq)
  }
  return shown
}

/** A message's text parts, joined as Mastra's request text joins them. */
const textOf = (message: MessageItem): string =>
  message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')

/**
 * Mastra's semantic recall through Strata's ranked recall (`resource.query`: words, and embeddings
 * when the memory has an embedder): the `topK` best matches of the request among the messages of the
 * run's thread or of every thread of its resource, each with `messageRange` messages around it, as
 * one system message (`[MEMORY:RECALLED]`), grouped by conversation, oldest first. What the context
 * already shows (the run's thread's view at `level`, the context's level, cut as `lastMessages` cuts
 * the prompt: see {@link shownSeqs}) is not recalled again; what left it (archived, inside a scope
 * closed since, or before the cap) may be. Undefined when nothing matched, or when
 * the store keeps no resources to rank in.
 */
export async function recallText(
  memory: Memory,
  thread: Thread,
  resourceId: string,
  text: string,
  settings: SemanticRecallSettings,
  { level, lastMessages }: { level?: string | undefined; lastMessages?: number | undefined } = {},
): Promise<string | undefined> {
  if (memory.store.flags?.resources !== true || text.trim().length === 0) return undefined
  const resource = memory.resource(resourceId)
  // The view, held in memory: the whole active log would be read back from the store on a long
  // thread whose open sealed its closed scopes' items.
  const shown = shownSeqs(await thread.view(level), text, lastMessages)
  const limit = Math.min(QUERY_LIMIT, settings.topK * 3 + shown.size)
  const recallable = (hit: ResourceQueryHit) =>
    hit.kind === 'item' && !(hit.threadId === thread.id && shown.has(hit.seq))
  const found = await resource.query(text, {
    limit,
    ...(settings.scope === 'thread' ? { threads: [thread.id] } : {}),
  })
  const hits = found.filter(recallable).slice(0, settings.topK)
  if (settings.scope !== 'thread' && hits.length < settings.topK && found.length === limit) {
    // Every hit the query may give can be a message the prompt shows (a long view matching the request
    // throughout): the other threads are asked on their own for the rest.
    const others = (await resourceThreadIds(resource)).filter((id) => id !== thread.id)
    if (others.length > 0) {
      const more = await resource.query(text, {
        limit: Math.min(QUERY_LIMIT, settings.topK * 3),
        threads: others,
      })
      const seen = new Set(hits.map((hit) => `${hit.threadId}:${hit.seq}`))
      for (const hit of more) {
        if (hits.length >= settings.topK) break
        if (recallable(hit) && !seen.has(`${hit.threadId}:${hit.seq}`)) hits.push(hit)
      }
    }
  }
  if (hits.length === 0) return undefined
  const byThread = new Map<string, Map<number, MessageItem>>()
  for (const hit of hits) {
    const messages = byThread.get(hit.threadId) ?? new Map<number, MessageItem>()
    byThread.set(hit.threadId, messages)
    for (const item of await neighbours(memory, hit.threadId, hit.seq, settings)) {
      if (!(hit.threadId === thread.id && shown.has(item.seq))) messages.set(item.seq, item)
    }
  }
  const sections: string[] = []
  for (const [threadId, messages] of byThread) {
    if (messages.size === 0) continue
    const record = await readThreadRecord(memory.store, threadId)
    const label =
      threadId === thread.id
        ? 'earlier in this conversation'
        : `conversation ${JSON.stringify(record?.title || record?.threadId || threadId)}`
    const lines = [...messages.values()].sort((a, b) => a.seq - b.seq).map(messageLine)
    sections.push(`— ${label} —\n${lines.join('\n')}`)
  }
  if (sections.length === 0) return undefined
  return `[MEMORY:RECALLED]\nMessages recalled from the conversation history as the best matches of the request, with the messages around them:\n${sections.join('\n')}`
}
