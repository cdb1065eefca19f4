import type { Item, JsonValue, MessagePart } from '../items'
import type { ContextMessage } from './context-message'

/** The tag the note starts with. */
const OMITTED_TAG = '[MEMORY:OMITTED]'

/** Characters of a call's JSON input, or of a text, a line of the note shows. */
const GIST_CHARS = 80

/** The tag of the content channel's note of grouped-out results (content/stored-results.ts). */
export const STORED_RESULTS_TAG = '[STORED RESULTS]'

/** The view items that are notes a context adds (the grouped-out results' note), not stored messages. */
const noteItems = new WeakSet<Item>()

/** Marks a view item the context made up as a note: its message is rendered with `kind: 'note'`. */
export function asNoteItem<I extends Item>(item: I): I {
  noteItems.add(item)
  return item
}

/** Whether a view item is a note the context made up (see {@link asNoteItem}). */
export const isNoteItem = (item: Item) => noteItems.has(item)

/** Lines the note lists at most, whatever the budget: past this a list stops being read. */
export const OMITTED_NOTE_MAX_LINES = 24

/**
 * The most tokens the note may take in a context of `budget` tokens: a tenth of the budget, between
 * 160 and 800. The note is read instead of conversation, so it stays a small part of the budget; 160
 * holds its header and two or three lines at the smallest budgets (2k), and 800 about
 * {@link OMITTED_NOTE_MAX_LINES} lines, past which a list stops being read. Lines that do not fit are
 * counted in one line that points to `memory_query`.
 */
export function omittedNoteMaxTokens(budget: number): number {
  return Math.max(160, Math.min(800, Math.floor(budget / 10)))
}

/** A short, one-line gist of a value: JSON, whitespace collapsed, cut with `…`. */
function gist(value: string): string {
  const line = value.replace(/\s+/g, ' ').trim()
  return line.length > GIST_CHARS ? `${line.slice(0, GIST_CHARS - 1)}…` : line
}

const jsonGist = (value: JsonValue | undefined) => gist(value === undefined ? '' : JSON.stringify(value))

/**
 * The note's lines for one step of the view that leaves the context, oldest first: one per tool call
 * (tool name, a gist of its input, the ids `memory_retrieve` answers with its results), one per text
 * of a message, one for a transition, a summary or a fact. `sourceId` names the id that returns a
 * part's whole content.
 */
export function omittedLines<I extends Item>(
  items: readonly I[],
  sourceId: (item: I, part: MessagePart) => string,
): string[] {
  const results = new Map<string, string[]>()
  for (const item of items) {
    if (item.type !== 'message') continue
    for (const part of item.content) {
      if (part.type !== 'tool-result') continue
      const ids = results.get(part.toolCallId) ?? []
      ids.push(sourceId(item, part))
      results.set(part.toolCallId, ids)
    }
  }
  const lines: string[] = []
  for (const item of items) {
    switch (item.type) {
      case 'message': {
        const text = item.content.find((part) => part.type === 'text')
        // The content channel's list of grouped-out results already names each result and its id.
        if (text?.text.startsWith(STORED_RESULTS_TAG)) {
          lines.push(...text.text.split('\n').filter((line) => line.startsWith('- ')))
          break
        }
        if (text !== undefined) lines.push(`- ${item.role}: "${gist(text.text)}" → ${sourceId(item, text)}`)
        for (const part of item.content) {
          if (part.type !== 'tool-call') continue
          const ids = results.get(part.toolCallId) ?? []
          lines.push(
            `- ${part.toolName} ${jsonGist(part.input)}${ids.length === 0 ? '' : ` → ${ids.join(', ')}`}`,
          )
        }
        break
      }
      case 'transition':
        lines.push(`- scope closed: "${gist(item.agentFacingMessage)}" → ${item.id}`)
        break
      case 'summary':
        lines.push(`- ${item.tier} summary: "${gist(item.text)}" → ${item.id}`)
        break
      case 'fact':
        lines.push(`- fact: "${gist(item.text)}" → ${item.id}`)
        break
    }
  }
  return lines
}

/** The omitted note and its text's tokens as its lines were counted (see {@link omittedNote}). */
export interface OmittedNote {
  message: ContextMessage
  /**
   * The text's tokens: the header's, the lines' shown and one for each line break, each counted alone
   * (cached by the caller), so a fit that omits step after step does not count the whole note again.
   */
  tokens: number
}

/**
 * The note a context carries when it leaves view items out to fit its budget: a table of contents of
 * what left, the newest lines kept while the note stays within `maxTokens` and
 * {@link OMITTED_NOTE_MAX_LINES}; older lines are counted, not listed. `countText` counts a text's
 * tokens (lines are counted one by one, plus one token for each line break).
 */
export function omittedNote(
  count: number,
  lines: readonly string[],
  maxTokens: number,
  countText: (text: string) => number,
): OmittedNote {
  const { first, tokens } = noteLayout(lines, maxTokens, countText)
  const text = [noteHeader(count), ...olderLine(first), ...lines.slice(first)].join('\n')
  return { message: { role: 'system', content: [{ type: 'text', text }], kind: 'note' }, tokens }
}

/**
 * The tokens of {@link omittedNote}'s text, without writing it: what a fit that leaves step after
 * step out asks after each step (the note itself is written once, for the plan it settles on).
 */
export function omittedNoteTokens(
  lines: readonly string[],
  maxTokens: number,
  countText: (text: string) => number,
): number {
  return noteLayout(lines, maxTokens, countText).tokens
}

function noteHeader(count: number): string {
  const what = count === 1 ? '1 earlier item' : `${count} earlier items`
  return (
    `${OMITTED_TAG} ${what} left out to fit the token budget, stored whole: memory_retrieve {"id":"<id>"} ` +
    'returns one, memory_query searches all; retrieve a listed result rather than repeat its call.'
  )
}

const olderLine = (older: number) =>
  older > 0 ? [`- … ${older} older line${older === 1 ? '' : 's'}: memory_query finds them`] : []

/**
 * The tokens of the "older lines" line as counted for the layout: of the same line for the smallest
 * number of as many digits, so a fit that leaves thousands of steps out counts a dozen texts, not one
 * per step (a number's tokens go with its digits; the context's final count settles the rest).
 */
function olderTokens(older: number, countText: (text: string) => number): number {
  if (older <= 0) return 0
  const digits = String(older).length
  return countText(olderLine(older < 10 ? older : 10 ** (digits - 1))[0]!)
}

/**
 * Which lines the note lists (from `first` on, the newest) and its text's tokens: the header's (its
 * count's digits aside, as for the older line), the older line's and the lines shown, each counted
 * alone (cached by the caller) with one token for each line break.
 */
function noteLayout(
  lines: readonly string[],
  maxTokens: number,
  countText: (text: string) => number,
): { first: number; tokens: number } {
  // Room for the header and the "older" line, then the newest lines while they fit.
  const headerTokens = countText(noteHeader(2))
  let left = maxTokens - headerTokens - olderTokens(lines.length, countText) - 8
  let linesTokens = 0
  let first = lines.length
  while (first > 0 && lines.length - first < OMITTED_NOTE_MAX_LINES) {
    const cost = countText(lines[first - 1]!) + 1
    if (cost > left) break
    left -= cost
    linesTokens += cost
    first--
  }
  const older = olderTokens(first, countText)
  return { first, tokens: headerTokens + (older === 0 ? 0 : older + 1) + linesTokens }
}
