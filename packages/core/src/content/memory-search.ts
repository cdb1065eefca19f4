import type { Item, MessagePart } from '../items'
import type { ContentRecord } from '../stores'
import { referenceOf } from './content-reference'
import type { MemoryHitLocation, MemoryQueryHit } from './memory-tool-types'
import { termSpans } from './search-terms'

/** One thing the memory tools can find: a content record or an item of the log or archive, as text. */
export interface MemoryEntry extends Omit<MemoryQueryHit, 'size' | 'snippet'> {
  /** The text searched and retrieved. */
  text: string
  /** True when `text` is JSON (transforms work element by element). */
  json: boolean
  /** Newest-first order among entries of one timestamp: higher first. */
  order: number
  /** Words that name it besides its text, searched with its labels: the input of the call a result answers. */
  labels?: string
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

const SNIPPET_CHARS = 160
/** How wide a stretch of text counts as one place where query words meet. */
const MEETING_CHARS = 120
/** Text read to place a snippet: the words of a query meet early enough in any real page. */
const SNIPPET_SCAN_CHARS = 200_000

/**
 * About 160 characters on one line around where the query's terms meet: the stretch of text holding
 * the most of them (each weighted by `weights`, its IDF, when given; the earliest such stretch), so a
 * snippet shows the value next to the words that name it rather than the first mention of one word;
 * the start when no term occurs.
 */
export function snippetOf(
  text: string,
  terms: readonly string[],
  weights?: ReadonlyMap<string, number>,
): string {
  const [from, to] = meetingOf(text, terms, weights)
  const room = Math.max(0, SNIPPET_CHARS - (to - from))
  let start = Math.max(0, Math.min(from - Math.floor(room / 2), text.length - SNIPPET_CHARS))
  // Do not start in the middle of a surrogate pair.
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start]!)) start++
  const slice = text
    .slice(start, start + SNIPPET_CHARS)
    .replace(/\s+/g, ' ')
    .trim()
  return `${start > 0 ? '…' : ''}${slice}${start + SNIPPET_CHARS < text.length ? '…' : ''}`
}

/** Where the stretch of text holding the most (weighted) distinct query terms begins and ends. */
function meetingOf(
  text: string,
  terms: readonly string[],
  weights?: ReadonlyMap<string, number>,
): [number, number] {
  const wanted = new Set(terms)
  if (wanted.size === 0) return [0, 0]
  const hits = termSpans(text, SNIPPET_SCAN_CHARS).filter((span) => wanted.has(span.term))
  if (hits.length === 0) return [0, 0]
  const inside = new Map<string, number>()
  let weight = 0
  let best = { weight: -1, from: 0, to: 0 }
  let left = 0
  for (let right = 0; right < hits.length; right++) {
    const hit = hits[right]!
    const held = inside.get(hit.term) ?? 0
    if (held === 0) weight += weights?.get(hit.term) ?? 1
    inside.set(hit.term, held + 1)
    while (left < right && hit.end - hits[left]!.start > MEETING_CHARS) {
      const leaving = hits[left++]!
      const count = inside.get(leaving.term)! - 1
      inside.set(leaving.term, count)
      if (count === 0) weight -= weights?.get(leaving.term) ?? 1
    }
    if (weight > best.weight + 1e-9) best = { weight, from: hits[left]!.start, to: hit.end }
  }
  return [best.from, best.to]
}

/** Newest first: by timestamp, then by `order` (content before items, later seqs first), then by id. */
export function compareEntriesNewestFirst(left: MemoryEntry, right: MemoryEntry): number {
  if (left.ts !== right.ts) return right.ts - left.ts
  if (left.order !== right.order) return right.order - left.order
  return left.id < right.id ? 1 : left.id > right.id ? -1 : 0
}
