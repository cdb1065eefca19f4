import type { Item, MessagePart } from '../items'
import type { ContentRecord } from '../stores'
import { referenceOf } from './content-reference'
import type { MemoryHitLocation, MemoryQueryHit } from './memory-tool-types'

/** One thing the memory tools can find: a content record or an item of the log or archive, as text. */
export interface MemoryEntry extends Omit<MemoryQueryHit, 'size' | 'snippet'> {
  /** The text searched and retrieved. */
  text: string
  /** True when `text` is JSON (transforms work element by element). */
  json: boolean
  /** Newest-first order among entries of one timestamp: higher first. */
  order: number
}

const partText = (part: MessagePart): string => {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text
    case 'file':
      return `[file ${part.mediaType}${part.filename === undefined ? '' : ` ${part.filename}`}]`
    case 'tool-call':
      return `[tool-call ${part.toolName}] ${JSON.stringify(part.input)}`
    case 'tool-result':
      return `[tool-result ${part.toolName}${part.isError ? ' error' : ''}] ${
        typeof part.output === 'string' ? part.output : JSON.stringify(part.output)
      }`
  }
}

/**
 * An item as a memory entry, or undefined when it holds nothing of its own to find: a message whose
 * parts are all citations of stored content is found through that content instead.
 */
export function itemEntry(item: Item, where: MemoryHitLocation): MemoryEntry | undefined {
  const base = { id: item.id, level: item.level, ts: item.ts, order: item.seq }
  switch (item.type) {
    case 'message': {
      const parts = item.content.filter((part) => referenceOf(part) === undefined)
      if (parts.length === 0) return undefined
      const result = parts.length === 1 && parts[0]!.type === 'tool-result' ? parts[0] : undefined
      if (result !== undefined) {
        // A lone tool result is retrieved as its output, so JSON transforms apply to it.
        const json = typeof result.output !== 'string'
        const text = json ? JSON.stringify(result.output) : (result.output as string)
        return { ...base, where, type: 'tool-result', source: result.toolName, tags: [], text, json }
      }
      const tool = parts.find((part) => part.type === 'tool-result' || part.type === 'tool-call')
      const type = parts.some((part) => part.type === 'tool-result') ? 'tool-result' : 'message'
      const source = tool !== undefined && 'toolName' in tool ? tool.toolName : item.role
      const text = parts.map(partText).join('\n')
      return { ...base, where, type, source, tags: [], text, json: false }
    }
    case 'transition':
      return {
        ...base,
        where,
        type: 'transition',
        source: item.reason,
        tags: [],
        text: item.agentFacingMessage,
        json: false,
      }
    case 'summary':
      return {
        ...base,
        where: where === 'archive' ? where : 'summary',
        type: 'summary',
        source: item.tier,
        tags: [],
        text: item.text,
        json: false,
      }
    case 'fact':
      return {
        ...base,
        where: where === 'archive' ? where : 'fact',
        type: 'fact',
        tags: [...item.tags],
        text: item.text,
        json: false,
      }
  }
}

/** A content record as a memory entry. */
export function contentEntry(record: ContentRecord): MemoryEntry {
  const entry: MemoryEntry = {
    id: record.id,
    where: 'content',
    type: record.type,
    ts: record.ts,
    tags: [...record.tags],
    text: record.data,
    json: record.mediaType === 'application/json',
    // Content sorts above items of the same timestamp: it is what the agent stored or fetched.
    order: Number.MAX_SAFE_INTEGER,
  }
  if (record.source !== undefined) entry.source = record.source
  if (record.level !== undefined) entry.level = record.level
  return entry
}

/** True when every lower-cased word occurs in the text, case-insensitively. */
export function containsWords(text: string, words: readonly string[]): boolean {
  if (words.length === 0) return true
  const lower = text.toLowerCase()
  return words.every((word) => lower.includes(word))
}

const SNIPPET_CHARS = 160

/** Occurrences of one word a snippet looks at, at most: a word on every line of a page is not rarer. */
const MAX_OCCURRENCES = 500

/**
 * About 160 characters on one line around where the query's words come together: the stretch with the
 * most distinct words of the query (the earliest such one), so a snippet shows the value next to the
 * words that name it rather than the first mention of one word; the start when no word occurs.
 */
export function snippetOf(text: string, words: readonly string[]): string {
  const start = Math.max(0, bestStretch(text.toLowerCase(), words) - SNIPPET_CHARS / 4)
  const slice = text
    .slice(start, start + SNIPPET_CHARS)
    .replace(/\s+/g, ' ')
    .trim()
  return `${start > 0 ? '…' : ''}${slice}${start + SNIPPET_CHARS < text.length ? '…' : ''}`
}

/** Where the stretch of text holding the most distinct query words begins (0 when none occurs). */
function bestStretch(lower: string, words: readonly string[]): number {
  const hits: { at: number; word: number }[] = []
  words.forEach((word, index) => {
    if (word.length === 0) return
    for (let at = lower.indexOf(word), found = 0; at >= 0 && found < MAX_OCCURRENCES; found++) {
      hits.push({ at, word: index })
      at = lower.indexOf(word, at + word.length)
    }
  })
  if (hits.length === 0) return 0
  hits.sort((a, b) => a.at - b.at)
  // A window over the hits no wider than most of a snippet, counting the distinct words inside it.
  const width = (SNIPPET_CHARS * 3) / 4
  const inside = new Map<number, number>()
  let best = { distinct: 0, at: hits[0]!.at }
  let left = 0
  for (const hit of hits) {
    inside.set(hit.word, (inside.get(hit.word) ?? 0) + 1)
    while (hit.at - hits[left]!.at > width) {
      const leaving = hits[left++]!.word
      const count = inside.get(leaving)! - 1
      if (count === 0) inside.delete(leaving)
      else inside.set(leaving, count)
    }
    if (inside.size > best.distinct) best = { distinct: inside.size, at: hits[left]!.at }
  }
  return best.at
}

/** Newest first: by timestamp, then by `order` (content before items, later seqs first), then by id. */
export function compareEntriesNewestFirst(left: MemoryEntry, right: MemoryEntry): number {
  if (left.ts !== right.ts) return right.ts - left.ts
  if (left.order !== right.order) return right.order - left.order
  return left.id < right.id ? 1 : left.id > right.id ? -1 : 0
}
