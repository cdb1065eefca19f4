import type { Item, JsonValue } from '../items'
import type { ContentRecord } from '../stores'
import { contentEntry, itemEntry, type MemoryEntry } from './memory-search'
import type { MemoryHitLocation } from './memory-tool-types'

/**
 * Tools whose calls and results `memory_query` never returns: the memory tools echo what memory holds
 * (a query's hits, a retrieved copy, the stored text, which is found as its content record), and the
 * scope tools echo what the scope's opening, transition and summary items hold.
 */
export const ECHO_TOOLS: ReadonlySet<string> = new Set([
  'memory_query',
  'memory_retrieve',
  'memory_store',
  'enter_scope',
  'exit_scope',
])

/** Content records the memory tools wrote as copies (a retrieve offloaded again) are echoes too. */
export const isEchoRecord = (source: string | undefined) =>
  source !== undefined && source !== 'memory_store' && ECHO_TOOLS.has(source)

/**
 * The tool calls of a thread: each call's input, and which calls have a result. A call and its result
 * are one unit: the result is what a search should find, and it is found by the call's input too.
 */
export class ToolCalls {
  readonly #inputs = new Map<string, JsonValue>()
  readonly answered = new Set<string>()

  add(items: readonly Item[]) {
    for (const item of items) {
      if (item.type !== 'message') continue
      for (const part of item.content) {
        if (part.type === 'tool-call') this.#inputs.set(part.toolCallId, part.input)
        else if (part.type === 'tool-result') this.answered.add(part.toolCallId)
      }
    }
  }

  /** The inputs of the calls `toolCallIds` name, as one text. */
  inputsOf(toolCallIds: readonly string[]): string | undefined {
    const inputs = toolCallIds.flatMap((id) =>
      this.#inputs.has(id) ? [JSON.stringify(this.#inputs.get(id)) ?? ''] : [],
    )
    return inputs.length === 0 ? undefined : inputs.join(' ')
  }
}

/** True when an item's entry can change: it holds a call whose result has not come yet. */
export const pendingCall = (item: Item, calls: ToolCalls) =>
  item.type === 'message' &&
  item.content.some((part) => part.type === 'tool-call' && !calls.answered.has(part.toolCallId))

/**
 * An item as the query searches it: without its parts that call or answer an echoing tool, nor calls
 * that have a result (the result stands for both); undefined when nothing else is left.
 */
export function searchedEntry(
  item: Item,
  where: MemoryHitLocation,
  calls: ToolCalls,
): MemoryEntry | undefined {
  if (item.type !== 'message') return itemEntry(item, where)
  const kept = item.content.filter((part) => {
    if (part.type !== 'tool-call' && part.type !== 'tool-result') return true
    if (ECHO_TOOLS.has(part.toolName)) return false
    return part.type === 'tool-result' || !calls.answered.has(part.toolCallId)
  })
  if (kept.length === 0) return undefined
  const entry = itemEntry(kept.length === item.content.length ? item : { ...item, content: kept }, where)
  const labels = calls.inputsOf(
    kept.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : [])),
  )
  if (entry !== undefined && labels !== undefined) entry.labels = labels
  return entry
}

/**
 * A content record as the query searches it: found by the input of the call whose result it holds
 * (`meta.toolCallId`), as that call's result in the log is.
 */
export function searchedRecord(record: ContentRecord, calls: ToolCalls): MemoryEntry {
  const entry = contentEntry(record)
  const toolCallId = record.meta?.toolCallId
  const labels = typeof toolCallId === 'string' ? calls.inputsOf([toolCallId]) : undefined
  if (labels !== undefined) entry.labels = labels
  return entry
}
