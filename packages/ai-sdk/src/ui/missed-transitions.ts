import {
  type Item,
  invalidOptions,
  type Memory,
  type SummaryItem,
  type Thread,
  type TransitionItem,
} from '@strata-memory/core'
import type { UIMessage, UIMessageStreamWriter } from 'ai'
import { assertChatId, readChatThread } from '../threads/chat-thread'
import { isOrphanCompaction } from './load-ui-messages'
import { memoryCompactionChunk, type StrataUIMessage } from './memory-ui-parts'

/** Options of {@link writeMissedTransitions}. */
export interface WriteMissedTransitionsOptions {
  /** The `createUIMessageStream` writer. */
  writer: UIMessageStreamWriter<StrataUIMessage> | UIMessageStreamWriter<UIMessage>
  memory: Memory
  /** The chat's id (any non-empty string, mapped as `openChatRequest` maps it). */
  threadId: string
  /**
   * The thread's last seq the page shows (`metadata.strata.seq`, which `sendLastMessage` sends as
   * `lastSeq`): transitions after it are written, and only the items after it are read.
   */
  lastSeq?: number
  /**
   * Without `lastSeq`: the chat's messages as the request sent them (a client that re-sends its
   * history, data parts included); the transitions they do not show are written.
   */
  messages?: readonly UIMessage[]
}

/** The seqs of the parts of this type (`data-memory-transition`, `data-memory-compaction`) a chat shows. */
function shownSeqs(messages: readonly UIMessage[], type: string): Set<number> {
  const seqs = new Set<number>()
  for (const message of messages) {
    for (const part of message.parts ?? []) {
      if (part.type !== type) continue
      const seq = (part as { data?: { seq?: unknown } }).data?.seq
      if (typeof seq === 'number') seqs.add(seq)
    }
  }
  return seqs
}

/** A conversation message: a user's or an assistant's, not a scope's opening. */
const isConversation = (item: Item) =>
  item.type === 'message' && item.scope === undefined && (item.role === 'user' || item.role === 'assistant')

/**
 * The compactions of `candidates` that belong to the answer about to stream, as `loadUIMessages`
 * places them: those after the thread's last conversation message when that is a user message (a
 * question answered again, its old answer replaced; or a question whose answer never came), and those
 * with no answer after them whose own turn has no message left (an edit rewound the question and the
 * answer they followed). Others stay where they are: a compaction after an answer of its turn is
 * shown on that answer.
 */
async function answerCompactions(
  thread: Thread,
  items: readonly Item[],
  candidates: readonly SummaryItem[],
): Promise<SummaryItem[]> {
  if (candidates.length === 0) return []
  let last = items.findLast(isConversation)
  last ??= await conversationBefore(thread)
  if (last === undefined) return []
  const lastAnswer = items.findLast(
    (item) => isConversation(item) && item.type === 'message' && item.role === 'assistant',
  )
  const answered = lastAnswer?.seq ?? 0
  const chosen: SummaryItem[] = []
  for (const summary of candidates) {
    if (summary.seq < answered) continue
    if (last.type === 'message' && last.role === 'user' && summary.seq > last.seq) chosen.push(summary)
    else if (await isOrphan(thread, items, summary)) chosen.push(summary)
  }
  return chosen
}

/**
 * The newest conversation message (before `seq` when given), if any: in the active log, or with
 * `archived` in the turns a compaction archived too.
 */
export async function conversationBefore(
  thread: Thread,
  seq?: number,
  archived = false,
): Promise<Item | undefined> {
  const turn = await thread.transcript({ archived, turns: 1, restore: false, ...(seq && { beforeSeq: seq }) })
  return turn.items.findLast(isConversation)
}

/**
 * Whether a compaction goes on the next answer, as `loadUIMessages` places it (`isOrphanCompaction`):
 * the conversation message before it, read here when the items after the page's point do not hold it.
 */
async function isOrphan(thread: Thread, items: readonly Item[], summary: SummaryItem): Promise<boolean> {
  const before =
    items.findLast((item) => item.seq < summary.seq && isConversation(item)) ??
    (await conversationBefore(thread, summary.seq))
  return isOrphanCompaction(summary, before?.turnId)
}

/**
 * Writes a `data-memory-transition` part for each transition of the thread the page does not show
 * yet: a scope closed between responses (by the app, a control on the page, or an automatic
 * transition) then reaches the chat at the start of the next response. A compaction the page no
 * longer shows because its answer is being replaced (a regenerate: `openChatRequest`'s `lastSeq` is
 * then the question's seq) gets its `data-memory-compaction` part there too, where a reload shows
 * it. With `lastSeq` (a page that sends only its last message) only what the thread stored after it
 * is read, so a request costs the same on a long thread; with `messages`, the active log is read and the transitions they show are
 * skipped. Call it in `execute` before the model streams (transitions made while it streams come from
 * `writeMemoryParts`), after writing the message's `start` chunk, and merge the model's stream with
 * `sendStart: false`: a client resets a message whose `start` chunk (carrying the message id) comes
 * after its first parts. Transitions whose user-facing text is `null` are not written. Resolves to
 * the number of parts written.
 *
 * @example
 * execute: async ({ writer }) => {
 *   writer.write({ type: 'start', messageId })
 *   await writeMissedTransitions({ writer, memory, threadId, lastSeq })
 *   const stop = writeMemoryParts({ writer, memory, threadId })
 *   …
 * }
 */
export async function writeMissedTransitions(options: WriteMissedTransitionsOptions): Promise<number> {
  const { writer, memory, threadId, messages, lastSeq } = options ?? ({} as WriteMissedTransitionsOptions)
  if (typeof writer?.write !== 'function') {
    invalidOptions(
      'writeMissedTransitions() needs { writer }: the writer createUIMessageStream passes to execute.',
    )
  }
  if (typeof memory?.thread !== 'function') {
    invalidOptions('writeMissedTransitions() needs { memory }: the memory from createMemory().')
  }
  assertChatId(threadId)
  if (lastSeq !== undefined && (!Number.isSafeInteger(lastSeq) || lastSeq < 0)) {
    invalidOptions(
      `writeMissedTransitions(): lastSeq must be a whole number, the last seq the page shows (got ${JSON.stringify(lastSeq)}).`,
      { lastSeq },
    )
  }
  if (lastSeq === undefined && !Array.isArray(messages)) {
    invalidOptions(
      'writeMissedTransitions() needs { lastSeq } (the last seq the page shows) or { messages } (the UI messages the request sent).',
    )
  }
  const shown = lastSeq === undefined ? shownSeqs(messages!, 'data-memory-transition') : new Set<number>()
  const shownCompactions =
    lastSeq === undefined ? shownSeqs(messages!, 'data-memory-compaction') : new Set<number>()
  const thread = await readChatThread(memory, threadId)
  const target = writer as UIMessageStreamWriter<StrataUIMessage>
  const { items, compactions = [] } = await thread.transcript({
    archived: false,
    compactions: true,
    ...(lastSeq === undefined ? {} : { afterSeq: lastSeq }),
  })
  const compacted = await answerCompactions(
    thread,
    items,
    compactions.filter((summary) => !shownCompactions.has(summary.seq)),
  )
  // The title of a closed scope is on its opening item, the first of the range the transition covers.
  const titles = new Map<number, string>()
  for (const item of items) if (item.type === 'message' && item.scope) titles.set(item.seq, item.scope.title)
  let written = 0
  let next = 0
  const writeCompactionsBefore = (seq: number) => {
    for (; next < compacted.length && compacted[next]!.seq < seq; next++) {
      const chunk = memoryCompactionChunk(threadId, compacted[next])
      if (chunk === undefined) continue
      target.write(chunk)
      written++
    }
  }
  for (const item of items) {
    if (item.type !== 'transition' || shown.has(item.seq)) continue
    const transition = item as TransitionItem
    if (transition.userFacingMessage === null) continue
    writeCompactionsBefore(transition.seq)
    // A scope opened before the page's last seq: its opening item is read by its seq alone.
    const opening = transition.range.fromSeq
    if (!titles.has(opening)) titles.set(opening, await scopeTitle(memory, thread.id, opening))
    target.write({
      type: 'data-memory-transition',
      id: transition.id,
      data: {
        threadId,
        fromLevel: transition.fromLevel,
        level: transition.level,
        reason: transition.reason,
        title: titles.get(transition.range.fromSeq) ?? '',
        text: transition.userFacingMessage,
        seq: transition.seq,
      },
    })
    written++
  }
  writeCompactionsBefore(Number.POSITIVE_INFINITY)
  return written
}

/** The title of the scope whose opening item has this seq (active or archived), or '' when it has none. */
async function scopeTitle(memory: Memory, threadId: string, seq: number): Promise<string> {
  const range = { fromSeq: seq, toSeq: seq }
  const [item] = await memory.store.read(threadId, range)
  const opening = item ?? (await memory.store.readArchive(threadId, range))[0]
  return opening?.type === 'message' && opening.scope ? opening.scope.title : ''
}
