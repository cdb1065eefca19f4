import type { Item, JsonValue, SummarizedFact } from '@strata-memory/core'

/**
 * The pattern summarizer's fact rules as they were before issue 24 (commit c0101af), kept frozen as the
 * `pnpm bench facts` baseline: the user's statements quoted (`User said: "…"`) and every identifier
 * or value-named field of a successful tool result (`orderId (lookup_order): A-1234`). Only the fact
 * path of the old summarizer is here (its summary text is not scored).
 */
export function oldRuleFacts(items: readonly Item[], maxFacts = 10): SummarizedFact[] {
  const facts = new FactCandidates()
  for (const item of items) {
    if (item.type !== 'message' || item.scope !== undefined) continue
    const texts: string[] = []
    for (const part of item.content) {
      if (part.type === 'text') texts.push(part.text)
      else if (part.type === 'file') {
        if (part.filename) texts.push(`[file ${part.filename}]`)
      } else if (part.type === 'tool-result' && part.isError !== true) {
        facts.toolResult(part.toolName, part.output, () => {})
      }
    }
    const text = texts.join('\n')
    if (item.role !== 'user' || text.trim().length === 0) continue
    for (const sentence of sentences(text)) {
      const kind = statementKind(sentence)
      if (kind !== undefined) facts.userStatement(sentence, kind)
    }
  }
  return facts.choose(maxFacts, [])
}

const normalizeFactText = (text: string) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/[\s.!?;:,。！？；：，、…]+$/u, '')

/** A fact found in the items, with where it came from and when (`order`), so the newest can be chosen. */
interface FactCandidate {
  fact: SummarizedFact
  source: 'user' | 'result'
  order: number
}

/**
 * The facts the pattern summarizer finds: the user's statements, quoted (`User said: "…"`), and the
 * identifiers and values of tool results (`orderId (lookup_order): A-1234`,
 * `create_ticket result: T-5532`). Every value is the input's text, whitespace collapsed.
 */
class FactCandidates {
  readonly #candidates: FactCandidate[] = []

  /** A sentence of the user's that states a name, a preference or a decision. */
  userStatement(sentence: string, kind: StatementKind) {
    const quoted = clip(sentence, 200).replace(/…$/, '')
    this.#candidates.push({
      fact: {
        text: `User said: "${quoted}"`,
        tags: kind === 'decision' ? ['user'] : ['user', kind],
        confidence: 0.9,
      },
      source: 'user',
      order: this.#candidates.length,
    })
  }

  /**
   * The identifiers of a successful tool result (a text's codes, emails, URLs …; a JSON result's
   * identifier-valued fields and fields whose key names a value: `orderId`, `customerName`, `total`).
   * Every identifier, value and name found in the result's strings (at most {@link READ_CHARS}
   * characters in all) also goes to `found`, for the summary's `Identifiers:` line.
   */
  toolResult(toolName: string, output: JsonValue, found: (identifier: string) => void) {
    const label = /^[\w.-]{1,40}$/.test(toolName) ? toolName : 'tool'
    if (typeof output === 'string') {
      findIdentifiers(output, (identifier) => {
        found(identifier)
        if (isIdentifier(identifier)) this.#result(`${label} result: ${identifier}`)
      })
      return
    }
    let budget = READ_CHARS
    for (const { path, value } of jsonLeaves(output)) {
      const key = path.join('.')
      const text = String(value).replace(/\s+/g, ' ').trim()
      if (typeof value === 'string' && budget > 0) {
        findIdentifiers(value.slice(0, budget), found)
        budget -= value.length
      }
      const short = text.length <= 80 && /[\p{L}\p{N}]/u.test(text)
      const valued = typeof value !== 'boolean' && keyNamesValue(path.at(-1) ?? '')
      if (short && /^[\w.-]{1,60}$/.test(key) && (valued || isIdentifier(text)))
        this.#result(`${key} (${label}): ${text}`)
    }
  }

  /**
   * At most `maxFacts` facts, each once (by {@link normalizeFactText}) and none the thread already
   * knows: the newest user statements first, then the newest result facts, returned oldest first.
   */
  choose(maxFacts: number, knownFacts: readonly string[]): SummarizedFact[] {
    const known = new Set(knownFacts.map(normalizeFactText))
    const newest = new Map<string, FactCandidate>()
    for (const candidate of this.#candidates) {
      const key = normalizeFactText(candidate.fact.text)
      if (known.has(key)) continue
      newest.delete(key)
      newest.set(key, candidate)
    }
    const unique = [...newest.values()]
    const picked: FactCandidate[] = []
    for (const source of ['user', 'result'] as const) {
      const ofSource = unique.filter((candidate) => candidate.source === source)
      picked.push(...ofSource.slice(Math.max(0, ofSource.length - (maxFacts - picked.length))))
    }
    return picked.sort((a, b) => a.order - b.order).map((candidate) => candidate.fact)
  }

  #result(text: string) {
    this.#candidates.push({
      fact: { text, tags: ['result'], confidence: 0.8 },
      source: 'result',
      order: this.#candidates.length,
    })
  }
}

// The last word of a key that names a value worth a fact: orderId, order_number, customerName, total.
const VALUE_WORDS = new Set(
  'id ids number no num code ref reference key email url uri link path file filename sku name title status date total amount price cost balance version phone address'.split(
    ' ',
  ),
)

function keyNamesValue(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_.-]+/)
  return VALUE_WORDS.has(words.at(-1) ?? '')
}
/**
 * How many characters of one text, tool input or tool result the pattern summarizer reads: a 50k
 * result costs no more than its first 4 000 characters, so a summary's work grows with the number of
 * items, not their size.
 */
const READ_CHARS = 4_000

/** Whitespace collapsed, trimmed, cut at a word boundary to `max` characters (then ending in `…`). */
function clip(text: string, max: number): string {
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
 * whitespace collapsed and its wording untouched. A line break ends a sentence; so do `.`, `!`, `?`
 * and `…` before a space, unless they end a common abbreviation ("Dr. Keller" is one sentence).
 */
function sentences(text: string): string[] {
  const read = text.slice(0, READ_CHARS)
  const out: string[] = []
  let start = 0
  const push = (end: number) => {
    const sentence = read.slice(start, end).replace(/\s+/g, ' ').trim()
    if (/[\p{L}\p{N}]/u.test(sentence)) out.push(sentence)
  }
  for (const match of read.matchAll(/[.!?…]+(?=\s)|\n+/g)) {
    const end = match.index + match[0].length
    if (match[0][0] !== '\n' && ABBREVIATION.test(read.slice(Math.max(start, end - 8), end))) continue
    push(end)
    start = end
  }
  push(read.length)
  return out
}

/** What a user's sentence states, when it states something worth keeping as a fact. */
type StatementKind = 'name' | 'preference' | 'decision'

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
function statementKind(sentence: string): StatementKind | undefined {
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
function isIdentifier(text: string): boolean {
  return text.length <= MAX_WORD && IDENTIFIER_WORD.some((pattern) => pattern.test(text))
}

/**
 * Calls `found` with each identifier (URLs, emails, UUIDs, file paths, codes such as `ZX-4471`,
 * `#12345`), value (amounts such as `49.90 EUR`, dates, times) and multi-word name (`Ana Lima`, not
 * at a sentence's start) in the first {@link READ_CHARS} characters of `text`, verbatim, in order of
 * appearance. Linear in the characters read.
 */
function findIdentifiers(text: string, found: (identifier: string) => void) {
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
interface JsonLeaf {
  path: string[]
  value: string | number | boolean
}

/**
 * The scalars of a JSON value, breadth first (top-level fields before nested ones), at most `limit`
 * nodes visited, so a huge result costs a bounded walk.
 */
function jsonLeaves(value: JsonValue, limit = 400): JsonLeaf[] {
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
