import type { JsonValue } from '../items'
import { JsonScan } from './json-scan'
import {
  collapsed,
  endsSentence,
  holdsLetterOrNumber,
  isCapitalised,
  isClosing,
  isOpening,
  isSpace,
} from './text-scan'

/**
 * How many characters of one text, tool input or tool result the pattern summarizer reads: a 50k
 * result costs no more than its first 4 000 characters, so a summary's work grows with the number of
 * items, not their size.
 */
export const READ_CHARS = 4_000

/** Whitespace collapsed, trimmed, cut at a word boundary to `max` characters (then ending in `…`). */
export function clip(text: string, max: number): string {
  return cut(collapsed(text, 0, Math.min(text.length, max * 4 + 16)), max)
}

/**
 * {@link clip} of a text whose white space is collapsed already (single spaces between words, none at
 * the ends), such as {@link sentences} joined by spaces: the same text, without looking for white space.
 */
export function clipCollapsed(text: string, max: number): string {
  if (text.length <= max) return text
  const read = max * 4 + 16
  // What `clip` reads of it, trimmed: a cut may end on a space.
  return cut(
    text.length > read ? text.slice(0, text.charCodeAt(read - 1) === 32 ? read - 1 : read) : text,
    max,
  )
}

/** `flat` cut at a word boundary to `max` characters (then ending in `…`). */
function cut(flat: string, max: number): string {
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
  const end = Math.min(text.length, READ_CHARS)
  const out: string[] = []
  let start = 0
  // What `/[.!?…]+(?=\s)|[。！？]+|\n+/g` matches, found in one pass: CJK sentence ends need no space
  // after them ("我叫王伟。我的订单…" is two sentences).
  let index = 0
  while (index < end) {
    const code = text.charCodeAt(index)
    let stop: number
    if (code === 46 || code === 33 || code === 63 || code === 0x2026) {
      stop = index + 1
      while (stop < end && isFullStop(text.charCodeAt(stop))) stop++
      // Not before white space (or at the end of what is read): no sentence end here.
      if (stop >= end || !isSpace(text.charCodeAt(stop))) {
        index = stop
        continue
      }
    } else if (code === 0x3002 || code === 0xff01 || code === 0xff1f) {
      stop = index + 1
      while (stop < end && isCjkStop(text.charCodeAt(stop))) stop++
    } else if (code === 10) {
      stop = index + 1
      while (stop < end && text.charCodeAt(stop) === 10) stop++
      pushSentence(out, text, start, stop)
      start = index = stop
      continue
    } else {
      index++
      continue
    }
    index = stop
    if (ABBREVIATION.test(text.slice(Math.max(start, stop - 8), stop))) continue
    pushSentence(out, text, start, stop)
    start = stop
  }
  pushSentence(out, text, start, end)
  return out
}

/** Adds `text[start, end)` to `out`, its white space collapsed, when it holds a letter or a digit. */
function pushSentence(out: string[], text: string, start: number, end: number) {
  const sentence = collapsed(text, start, end)
  if (holdsLetterOrNumber(sentence)) out.push(sentence)
}

const isFullStop = (code: number) => code === 46 || code === 33 || code === 63 || code === 0x2026
const isCjkStop = (code: number) => code === 0x3002 || code === 0xff01 || code === 0xff1f

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
/** Longest word looked at: longer ones are data, not identifiers. */
const MAX_WORD = 200

/** True when `text` is, as a whole, an identifier ({@link findIdentifiers} would keep it). */
export function isIdentifier(text: string): boolean {
  return text.length <= MAX_WORD && IDENTIFIER_WORD.some((pattern) => pattern.test(text))
}

/**
 * True when `core` (a word without its punctuation, holding a digit, `@` or `/`) is an identifier or a
 * value: {@link IDENTIFIER_WORD} or {@link VALUE_WORD}, each pattern tried only when the word has
 * what it needs (its first character, an `@`, a `/`, a dash, its length).
 */
function identifierOrValue(core: string): boolean {
  const first = core.charCodeAt(0)
  const digit = first >= 48 && first <= 57
  const upper = first >= 65 && first <= 90
  const letter = upper || (first >= 97 && first <= 122)
  if (first === 104 && IDENTIFIER_WORD[0]!.test(core)) return true
  if (core.includes('@') && IDENTIFIER_WORD[1]!.test(core)) return true
  if (core.length === 36 && IDENTIFIER_WORD[2]!.test(core)) return true
  if (core.includes('/') && IDENTIFIER_WORD[3]!.test(core)) return true
  if (letter && (core.includes('-') || core.includes('_')) && IDENTIFIER_WORD[4]!.test(core)) return true
  if (upper && IDENTIFIER_WORD[5]!.test(core)) return true
  if (first === 35 && IDENTIFIER_WORD[6]!.test(core)) return true
  if ((first === 36 || first === 0x20ac || first === 0xa3) && VALUE_WORD[0]!.test(core)) return true
  return digit && (VALUE_WORD[1]!.test(core) || VALUE_WORD[2]!.test(core) || VALUE_WORD[3]!.test(core))
}

// The word being read and its core (the word without the punctuation around it: `(ZX-4471),` →
// `ZX-4471`, `A-1234's` → `A-1234`), as offsets into the text, so a word costs no copy until it is kept.
let coreStart = 0
let coreEnd = 0

/** Sets {@link coreStart} and {@link coreEnd} to the core of the word `text[start, end)`. */
function bare(text: string, start: number, end: number) {
  let from = start
  let to = end
  while (from < to && isOpening(text.charCodeAt(from))) from++
  while (to > from && isClosing(text.charCodeAt(to - 1))) to--
  if (to - from > 2 && text.charCodeAt(to - 1) === 115) {
    const apostrophe = text.charCodeAt(to - 2)
    if (apostrophe === 39 || apostrophe === 0x2019) to -= 2
  }
  coreStart = from
  coreEnd = to
}

/** The end of the word that starts at `start` (the next white space, or `end`). */
function wordEnd(text: string, start: number, end: number): number {
  let index = start
  while (index < end && !isSpace(text.charCodeAt(index))) index++
  return index
}

/** The start of the next word at or after `start`, or `end` when there is none. */
function wordStart(text: string, start: number, end: number): number {
  let index = start
  while (index < end && isSpace(text.charCodeAt(index))) index++
  return index
}

/**
 * Calls `found` with each identifier (URLs, emails, UUIDs, file paths, codes such as `ZX-4471`,
 * `#12345`), value (amounts such as `49.90 EUR`, dates, times) and multi-word name (`Ana Lima`, not
 * at a sentence's start) in the first `readChars` (at most {@link READ_CHARS}) characters of `text`, verbatim,
 * in order of appearance. Linear in the characters read; once `done` says so, the rest is not read.
 */
export function findIdentifiers(
  text: string,
  found: (identifier: string) => void,
  done?: () => boolean,
  readChars = READ_CHARS,
) {
  const end = Math.min(text.length, readChars, READ_CHARS)
  const name: string[] = []
  const endName = () => {
    if (name.length >= 2) found(name.join(' '))
    if (name.length > 0) name.length = 0
  }
  let sentenceStart = true
  let start = wordStart(text, 0, end)
  while (start < end) {
    if (done?.()) return
    // The word's end, and whether it holds a digit, `@` or `/`, in one pass.
    let stop = start
    let maybeIdentifier = false
    for (; stop < end; stop++) {
      const code = text.charCodeAt(stop)
      if (code <= 32 ? code === 32 || (code >= 9 && code <= 13) : code >= 0xa0 && isSpace(code)) break
      if ((code >= 48 && code <= 57) || code === 64 || code === 47) maybeIdentifier = true
    }
    const next = wordStart(text, stop, end)
    if (stop - start > MAX_WORD) {
      endName()
      start = next
      continue
    }
    const startsSentence = sentenceStart
    sentenceStart = endsSentence(text, start, stop)
    // Identifiers and values all hold a digit, `@` or `/`; without one a word can only be part of a name.
    if (!maybeIdentifier) {
      if (!startsSentence) bare(text, start, stop)
      if (!startsSentence && isCapitalised(text, coreStart, coreEnd)) {
        name.push(text.slice(coreStart, coreEnd))
        // Punctuation after the word ends the name ("Ana Lima, Ben Ortiz" are two).
        if (coreEnd !== stop) endName()
      } else {
        endName()
      }
      start = next
      continue
    }
    // A core holding a digit, `@` or `/` is never a capitalised name word: it ends any name, which
    // may be the last identifier wanted.
    if (name.length > 0) {
      endName()
      if (done?.()) return
    }
    bare(text, start, stop)
    const core = text.slice(coreStart, coreEnd)
    if (identifierOrValue(core)) {
      found(core)
    } else if (coreStart === start && coreEnd === stop && NUMBER.test(core)) {
      // A bare number: the next word may be its unit (`12 kg`).
      const unitStop = wordEnd(text, next, end)
      bare(text, next, unitStop)
      const unit = text.slice(coreStart, coreEnd)
      if (UNIT.test(unit)) {
        found(`${core} ${unit}`)
        start = wordStart(text, unitStop, end)
        continue
      }
    }
    start = next
  }
  endName()
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

/** The scan {@link jsonGist} walks a value with when it is given none. */
const ownScan = /* @__PURE__ */ new JsonScan()

/**
 * `key: value` pairs of a JSON value's first scalars (or a text's first line), for one line of gist.
 * The values of one key stand together: `ids=[shape_1, shape_2, …]`. `scan`: the value already walked
 * (its leaves are read, not walked again).
 */
export function jsonGist(
  value: JsonValue,
  { max, separator }: { max: number; separator: string },
  scan?: JsonScan,
): string {
  if (typeof value === 'string') return clip(firstLine(value), max)
  if (value === null || typeof value !== 'object') return clip(String(value), max)
  const leaves = scan ?? ownScan.scan(value)
  const byKey = new Map<string, string[]>()
  let length = 0
  // Keys holding all the values they show: once every key does and no key may be added, the rest of
  // the leaves change nothing.
  let fullKeys = 0
  for (let index = 0; index < leaves.gistLeaves; index++) {
    const key = leaves.keys[index]!
    const values = byKey.get(key)
    const closed = byKey.size >= 4 || length >= max
    if (values === undefined) {
      if (closed) break
      const text = clip(String(leaves.values[index]), 40)
      byKey.set(key, [text])
      length += text.length + key.length + 2
    } else if (values.length < 4) {
      const text = clip(String(leaves.values[index]), 40)
      values.push(text)
      if (values.length === 4) fullKeys++
      length += text.length + key.length + 2
    } else if (closed) {
      if (fullKeys === byKey.size) break
    } else {
      length += clip(String(leaves.values[index]), 40).length + key.length + 2
    }
  }
  if (scan === undefined) ownScan.clear()
  const pairs = [...byKey].map(([key, values]) => {
    const shown = values.length === 1 ? values[0]! : listOf(values)
    return key === '' ? shown : `${key}${separator}${shown}`
  })
  const items = Array.isArray(value) ? `${value.length} item${value.length === 1 ? '' : 's'}` : ''
  const body = pairs.join(', ')
  return clip(items && body ? `${items}: ${body}` : items || body, max)
}

/** A text's first line holding more than white space (of its first {@link READ_CHARS} characters), or `''`. */
function firstLine(text: string): string {
  const end = Math.min(text.length, READ_CHARS)
  let first = 0
  while (first < end && isSpace(text.charCodeAt(first))) first++
  if (first === end) return ''
  const lineStart = text.lastIndexOf('\n', first) + 1
  const lineEnd = text.indexOf('\n', first)
  return text.slice(lineStart, lineEnd < 0 || lineEnd > end ? end : lineEnd)
}
