import type { ContentRecord, Item, MessagePart, StrataStore, Thread } from '@strata-memory/core'

/*
 * The baseline of `pnpm bench memory-query`: what `memory_query` did before it ranked — every entry of
 * the thread (content, active log, archive) turned into text, kept when every lower-cased word of the
 * query occurs in it, sorted newest first, with a snippet at the stretch holding most of the words.
 * Written again here from the removed code, through the public API, so the two run on the same thread.
 */

interface Entry {
  id: string
  ts: number
  order: number
  text: string
}

const partText = (part: MessagePart): string => {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text
    case 'file':
      return `[file ${part.mediaType}]`
    case 'tool-call':
      return `[tool-call ${part.toolName}] ${JSON.stringify(part.input)}`
    case 'tool-result':
      return `[tool-result ${part.toolName}${part.isError ? ' error' : ''}] ${
        typeof part.output === 'string' ? part.output : JSON.stringify(part.output)
      }`
  }
}

function itemText(item: Item): string {
  switch (item.type) {
    case 'message': {
      const only = item.content.length === 1 ? item.content[0] : undefined
      if (only?.type === 'tool-result')
        return typeof only.output === 'string' ? only.output : JSON.stringify(only.output)
      return item.content.map(partText).join('\n')
    }
    case 'transition':
      return item.agentFacingMessage
    case 'summary':
    case 'fact':
      return item.text
  }
}

const containsWords = (text: string, words: readonly string[]) => {
  const lower = text.toLowerCase()
  return words.every((word) => lower.includes(word))
}

/** The old snippet: 160 characters from a quarter before the stretch holding most distinct words. */
function snippetOf(text: string, words: readonly string[]): string {
  const lower = text.toLowerCase()
  const hits: { at: number; word: number }[] = []
  words.forEach((word, index) => {
    for (let at = lower.indexOf(word), found = 0; at >= 0 && found < 500; found++) {
      hits.push({ at, word: index })
      at = lower.indexOf(word, at + word.length)
    }
  })
  hits.sort((a, b) => a.at - b.at)
  const inside = new Map<number, number>()
  let best = { distinct: 0, at: hits[0]?.at ?? 0 }
  let left = 0
  for (const hit of hits) {
    inside.set(hit.word, (inside.get(hit.word) ?? 0) + 1)
    while (hit.at - hits[left]!.at > 120) {
      const leaving = hits[left++]!.word
      const count = inside.get(leaving)! - 1
      if (count === 0) inside.delete(leaving)
      else inside.set(leaving, count)
    }
    if (inside.size > best.distinct) best = { distinct: inside.size, at: hits[left]!.at }
  }
  const start = Math.max(0, best.at - 40)
  return text
    .slice(start, start + 160)
    .replace(/\s+/g, ' ')
    .trim()
}

/** The unranked all-words query of before, over the same thread and store. */
export async function allWordsQuery(
  thread: Thread,
  store: StrataStore,
  text: string,
  limit = 10,
): Promise<{ id: string; snippet: string }[]> {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean)
  const longest = words.reduce((best, word) => (word.length > best.length ? word : best), '')
  const found: Entry[] = []
  const records: ContentRecord[] = (await store.queryContent?.(thread.id, { text: longest })) ?? []
  for (const record of records) {
    if (containsWords(record.data, words))
      found.push({ id: record.id, ts: record.ts, order: Number.MAX_SAFE_INTEGER, text: record.data })
  }
  // The old query read the active log with its view; the view decided only each hit's `where`.
  const [items] = await Promise.all([thread.items(), thread.view()])
  for (const item of [...items, ...(await store.readArchive(thread.id))]) {
    const entryText = itemText(item)
    if (containsWords(entryText, words))
      found.push({ id: item.id, ts: item.ts, order: item.seq, text: entryText })
  }
  found.sort((left, right) => (left.ts !== right.ts ? right.ts - left.ts : right.order - left.order))
  return found.slice(0, limit).map((entry) => ({ id: entry.id, snippet: snippetOf(entry.text, words) }))
}
