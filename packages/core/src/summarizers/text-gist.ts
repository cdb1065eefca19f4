import type { JsonValue } from '../items'

/**
 * How many characters of one text, tool input or tool result the pattern summarizer reads: a 50k
 * result costs no more than its first 4 000 characters, so a summary's work grows with the number of
 * items, not their size.
 */
export const READ_CHARS = 4_000

/** Whitespace collapsed, trimmed, cut at a word boundary to `max` characters (then ending in `…`). */
export function clip(text: string, max: number): string {
  const flat = text
    .slice(0, max * 4 + 16)
    .replace(/\s+/g, ' ')
    .trim()
  if (flat.length <= max) return flat
  const cut = flat.slice(0, Math.max(1, max - 1))
  const space = cut.lastIndexOf(' ')
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`
}

/** Words that end in a full stop without ending a sentence. */
const ABBREVIATION = /(?:^|\s)(?:dr|mr|mrs|ms|prof|st|sr|jr|vs|etc|e\.g|i\.e|no|nr|approx|inc|ltd|[a-z])\.$/i

/**
 * The sentences of the first {@link READ_CHARS} characters of `text`, each trimmed with its
 * whitespace collapsed and its wording untouched. A line break ends a sentence; so do `。`, `！`,
 * `？`, and `.`, `!`, `?` and `…` before a space, unless they end a common abbreviation ("Dr. Keller" is one sentence).
 */
export function sentences(text: string): string[] {
  const read = text.slice(0, READ_CHARS)
  const out: string[] = []
  let start = 0
  const push = (end: number) => {
    const sentence = read.slice(start, end).replace(/\s+/g, ' ').trim()
    if (/[\p{L}\p{N}]/u.test(sentence)) out.push(sentence)
  }
  // CJK sentence ends need no space after them: "我叫王伟。我的订单…" is two sentences.
  for (const match of read.matchAll(/[.!?…]+(?=\s)|[。！？]+|\n+/g)) {
    const end = match.index + match[0].length
    if (match[0][0] !== '\n' && ABBREVIATION.test(read.slice(Math.max(start, end - 8), end))) continue
    push(end)
    start = end
  }
  push(read.length)
  return out
}

/** What a user's sentence states, when it states something worth keeping as a fact. */
export type StatementKind = 'name' | 'preference' | 'decision'

const NAME_CUE =
  /\b(?:my name(?:'s| is)|call me|i am called|i'm called|(?:my|our) (?:wife|husband|partner|son|daughter|mother|father|mum|mom|dad|brother|sister|friend|boss|manager|colleague|client|dog|cat)(?:'s name)? is|(?:his|her|their) name is)\b/i
const PREFERENCE_CUE =
  /\b(?:i (?:really |usually |always |never |do )?(?:prefer|like|love|hate|dislike|enjoy|avoid)|i(?:'d| would) (?:rather|prefer)|i (?:don't|do not|can't|cannot) (?:like|want|eat|drink|use|stand)|i(?:'m| am) (?:allergic|vegetarian|vegan)|always|never|from now on|my favou?rite|please (?:use|don't|do not|keep|avoid|make sure))\b/i
const DECISION_CUE =
  /\b(?:let's (?:use|go with|do|keep)|we(?:'ll| will| should) use|use|go with|decided|remember|make sure|my [\w-]+(?: [\w-]+)? (?:is|are)|i(?:'m| am) (?:a|an|the|based|from|in|at|on)|i live|i work)\b/i

/**
 * The kind of statement a sentence makes (a name, a preference, a decision), or undefined; a question
 * states nothing ("Can we use Redis?").
 */
export function statementKind(sentence: string): StatementKind | undefined {
  const text = sentence.replace(/[‘’]/g, "'")
  if (/\?["'”’)]*$/u.test(text)) return undefined
  if (NAME_CUE.test(text)) return 'name'
  if (PREFERENCE_CUE.test(text)) return 'preference'
  if (DECISION_CUE.test(text)) return 'decision'
  return undefined
}

// Identifiers a summary must keep verbatim, tested on one word at a time (so a 4 000-character word
// costs one look, never a backtracking scan): URLs, emails, UUIDs, file paths, codes with a capital
// letter and a digit (ZX-4471, A-1234, BA117, INV_2024_7), numbers after `#`.
const IDENTIFIER_WORD = [
  /^https?:\/\/\S+$/,
  /^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$/,
  /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
  /^(?:~|\.{1,2})?\/?(?:[\w.-]+\/)+[\w-]+\.[A-Za-z0-9]{1,8}$/,
  /^(?=.*[A-Z])(?=.*\d)[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+$/,
  /^[A-Z]{2,}\d{2,}[A-Z0-9]*$/,
  /^#\d{3,}$/,
]
// Values worth keeping beside them: amounts with a currency or unit, dates, times of day.
const VALUE_WORD = [
  /^[$€£]\d[\d,]*(?:\.\d+)?$/,
  /^\d[\d,]*(?:\.\d+)?(?:%|EUR|USD|GBP|CHF|JPY|kg|km|cm|mm|ms|GB|MB|KB|TB|°C|°F)$/u,
  /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?Z?)?$/,
  /^\d{1,2}:\d{2}$/,
]
const NUMBER = /^\d[\d,]*(?:\.\d+)?$/
const UNIT = /^(?:%|EUR|USD|GBP|CHF|JPY|kg|km|cm|mm|ms|GB|MB|KB|TB|°C|°F|€|\$|£)$/u
const CAPITALISED = /^\p{Lu}\p{Ll}+$/u
const MAYBE_IDENTIFIER = /[\d@/]/
/** True when a word ends a sentence: `.`, `!`, `?`, `:` or `;`, maybe before closing quotes. */
function endsSentence(word: string): boolean {
  let end = word.length - 1
  while (end > 0 && `"'”’)»`.includes(word[end]!)) end--
  return '.!?:;…'.includes(word[end]!)
}
/** Longest word looked at: longer ones are data, not identifiers. */
const MAX_WORD = 200

const OPENING = new Set(['(', '[', '{', '<', '"', "'", '“', '‘', '«'])
const CLOSING = new Set([')', ']', '}', '>', '"', "'", '”', '’', '»', '.', ',', ';', ':', '!', '?', '…'])

/** A word without the punctuation around it (`(ZX-4471),` → `ZX-4471`, `A-1234's` → `A-1234`). */
function bare(word: string): string {
  let start = 0
  let end = word.length
  while (start < end && OPENING.has(word[start]!)) start++
  while (end > start && CLOSING.has(word[end - 1]!)) end--
  const apostrophe = word[end - 2]
  if (end - start > 2 && word[end - 1] === 's' && (apostrophe === "'" || apostrophe === '’')) end -= 2
  return word.slice(start, end)
}

/** True when `text` is, as a whole, an identifier ({@link findIdentifiers} would keep it). */
export function isIdentifier(text: string): boolean {
  return text.length <= MAX_WORD && IDENTIFIER_WORD.some((pattern) => pattern.test(text))
}

/**
 * Calls `found` with each identifier (URLs, emails, UUIDs, file paths, codes such as `ZX-4471`,
 * `#12345`), value (amounts such as `49.90 EUR`, dates, times) and multi-word name (`Ana Lima`, not
 * at a sentence's start) in the first {@link READ_CHARS} characters of `text`, verbatim, in order of
 * appearance. Linear in the characters read.
 */
export function findIdentifiers(text: string, found: (identifier: string) => void) {
  const words = text.slice(0, READ_CHARS).split(/\s+/)
  let name: string[] = []
  const endName = () => {
    if (name.length >= 2) found(name.join(' '))
    name = []
  }
  let sentenceStart = true
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!
    if (word.length === 0 || word.length > MAX_WORD) {
      endName()
      continue
    }
    const startsSentence = sentenceStart
    sentenceStart = endsSentence(word)
    // Identifiers and values all hold a digit, `@` or `/`; without one a word can only be part of a name.
    if (!MAYBE_IDENTIFIER.test(word)) {
      const core = startsSentence ? '' : bare(word)
      if (core.length > 1 && CAPITALISED.test(core)) {
        name.push(core)
        if (!word.endsWith(core)) endName()
      } else {
        endName()
      }
      continue
    }
    const core = bare(word)
    if (!startsSentence && CAPITALISED.test(core)) {
      name.push(core)
      // Punctuation after the word ends the name ("Ana Lima, Ben Ortiz" are two).
      if (!word.endsWith(core)) endName()
      continue
    }
    endName()
    if (isIdentifier(core) || VALUE_WORD.some((pattern) => pattern.test(core))) {
      found(core)
    } else if (NUMBER.test(core) && core === word) {
      const unit = bare(words[index + 1] ?? '')
      if (UNIT.test(unit)) {
        found(`${core} ${unit}`)
        index++
      }
    }
  }
  endName()
}

/** One scalar of a JSON value with the path of keys that leads to it (array indices left out). */
export interface JsonLeaf {
  path: string[]
  value: string | number | boolean
}

/**
 * The scalars of a JSON value, breadth first (top-level fields before nested ones), at most `limit`
 * nodes visited, so a huge result costs a bounded walk.
 */
export function jsonLeaves(value: JsonValue, limit = 400): JsonLeaf[] {
  const leaves: JsonLeaf[] = []
  const queue: { path: string[]; value: JsonValue }[] = [{ path: [], value }]
  for (let head = 0; head < queue.length && head < limit; head++) {
    const node = queue[head]!
    const current = node.value
    if (current === null) continue
    if (typeof current !== 'object') {
      leaves.push({ path: node.path, value: current })
    } else if (Array.isArray(current)) {
      for (const entry of current.slice(0, limit)) queue.push({ path: node.path, value: entry })
    } else {
      for (const key of Object.keys(current).slice(0, limit)) {
        queue.push({ path: [...node.path.slice(-1), key], value: current[key]! })
      }
    }
  }
  return leaves
}

/**
 * `key: value` pairs of a JSON value's first scalars (or a text's first line), for one line of gist.
 * The values of one key stand together: `ids=[shape_1, shape_2, …]`.
 */
export function jsonGist(value: JsonValue, { max, separator }: { max: number; separator: string }): string {
  if (typeof value === 'string') {
    const line = value
      .slice(0, READ_CHARS)
      .split('\n')
      .find((part) => part.trim().length > 0)
    return clip(line ?? '', max)
  }
  if (value === null || typeof value !== 'object') return clip(String(value), max)
  const byKey = new Map<string, string[]>()
  let length = 0
  for (const leaf of jsonLeaves(value, 64)) {
    const key = leaf.path.at(-1) ?? ''
    const values = byKey.get(key)
    if (values === undefined && (byKey.size >= 4 || length >= max)) break
    const text = clip(String(leaf.value), 40)
    if (values === undefined) byKey.set(key, [text])
    else if (values.length < 4) values.push(text)
    length += text.length + key.length + 2
  }
  const pairs = [...byKey].map(([key, values]) => {
    const shown = values.length === 1 ? values[0]! : listOf(values)
    return key === '' ? shown : `${key}${separator}${shown}`
  })
  const items = Array.isArray(value) ? `${value.length} item${value.length === 1 ? '' : 's'}` : ''
  const body = pairs.join(', ')
  return clip(items && body ? `${items}: ${body}` : items || body, max)
}

/** `[a, b, c, …]`: as many of the values as fit in 60 characters (at least one), `…` when some are left. */
function listOf(values: readonly string[]): string {
  const shown: string[] = [values[0]!]
  let length = values[0]!.length
  for (const value of values.slice(1, 3)) {
    if (length + value.length + 2 > 60) break
    shown.push(value)
    length += value.length + 2
  }
  return `[${shown.join(', ')}${shown.length < values.length ? ', …' : ''}]`
}
