import type { Item, JsonValue, MessageItem } from '../items'
import { JsonScan } from './json-scan'
import { FactCandidates } from './pattern-facts'
import { EntryList, parseSummaryText } from './pattern-layout'
import { type IdentifierTaker, leafIdentifiers, ToolCalls } from './pattern-tools'
import { clip, clipCollapsed, findIdentifiers, READ_CHARS, sentences, statementKind } from './text-gist'
import { holdsNonSpace } from './text-scan'

/** How many identifiers one argument list, result or answer gives the `Identifiers:` line. */
const IDENTIFIERS_PER_PART = 6
/** A user's message keeps its first sentences up to this many characters, then only statements. */
const OPENING_CHARS = 160
/** Longest line of each section but the tools', in characters. */
const LINE_CHARS = { user: 300, assistant: 160, earlier: 240 } as const

/** How many identifiers each set keeps: the layout looks at a few hundred at most. */
const KEPT_IDENTIFIERS = 512

/**
 * Identifiers, each once, in order of last mention (a mention again makes it the newest). It keeps the
 * newest {@link KEPT_IDENTIFIERS}: a mention stamps its identifier (no delete and insert per mention,
 * which a long input pays for in rehashing), and the oldest are dropped in bulk, amortised O(1) each.
 */
export class RecentSet {
  #stamps = new Map<string, number>()
  readonly #keep: number
  #clock = 0

  constructor(keep = KEPT_IDENTIFIERS) {
    this.#keep = keep
  }

  add(value: string) {
    this.#stamps.set(value, this.#clock++)
    if (this.#stamps.size > 2 * this.#keep) this.#drop()
  }

  has(value: string): boolean {
    return this.#stamps.has(value)
  }

  /** Newest first. */
  newestFirst(): string[] {
    return [...this.#stamps].sort((a, b) => b[1] - a[1]).map(([value]) => value)
  }

  /** Keeps only the newest `keep`: those stamped at or after the `keep`-th newest stamp (stamps are distinct). */
  #drop() {
    const stamps = new Float64Array(this.#stamps.size)
    let index = 0
    for (const stamp of this.#stamps.values()) stamps[index++] = stamp
    stamps.sort()
    const oldestKept = stamps[stamps.length - this.#keep]!
    // A new map, filled once: deleting half of the entries in place leaves a sparse table behind.
    const kept = new Map<string, number>()
    this.#stamps.forEach((stamp, value) => {
      if (stamp >= oldestKept) kept.set(value, stamp)
    })
    this.#stamps = kept
  }
}

/**
 * What the pattern summarizer reads from the items, in one pass: the lines of each section, the tool
 * calls, the identifiers (the user's apart from the rest, since theirs come first) and the fact
 * candidates. Each text, argument and result costs at most {@link READ_CHARS} characters of reading.
 */
export class PatternReading {
  readonly user: EntryList
  readonly tools: EntryList
  readonly assistant: EntryList
  readonly earlier: EntryList
  readonly calls: ToolCalls
  readonly identifiers = { user: new RecentSet(), others: new RecentSet() }
  readonly facts: FactCandidates
  /**
   * About how many characters the items hold (what the summary replaces), counted until it reaches
   * `enoughChars`: past it a JSON value's size is not walked for.
   */
  inputChars = 0
  readonly #enoughChars: number
  /** The JSON value of the part being read, walked once for its size, gist and identifiers. */
  readonly #scan = new JsonScan()
  /** How many more identifiers the part being read may give the `Identifiers:` line. */
  #left = 0
  /** Takes the identifiers of the part being read (see {@link #elsewhere}). */
  readonly #taker: IdentifierTaker = {
    found: (identifier) => {
      if (this.#left-- > 0) this.identifiers.others.add(identifier)
    },
    // Once the part has given its share, the rest of it need not be read.
    full: () => this.#left <= 0,
  }
  /** The user's sentence being read holds an identifier. */
  #identified = false
  readonly #takeUsers = (identifier: string) => {
    this.#identified = true
    this.identifiers.user.add(identifier)
  }

  /**
   * Takes the identifiers of one argument list, result or answer for the `Identifiers:` line: its first
   * {@link IDENTIFIERS_PER_PART}, so a result listing 500 dates does not crowd out the rest.
   */
  #elsewhere(): IdentifierTaker {
    this.#left = IDENTIFIERS_PER_PART
    return this.#taker
  }

  /**
   * `keepLines`: how many of the newest lines each section keeps (no summary shows more); `maxFacts` and
   * `knownFacts`: see {@link FactCandidates}. Everything read is bounded by them, so the reading's
   * memory does not grow with the number of items.
   */
  constructor({
    actionOf,
    keepLines,
    maxFacts,
    knownFacts = [],
    enoughChars = Number.POSITIVE_INFINITY,
  }: {
    actionOf: (toolName: string, input: JsonValue) => string
    keepLines: number
    maxFacts: number
    knownFacts?: readonly string[]
    enoughChars?: number
  }) {
    this.#enoughChars = enoughChars
    this.user = new EntryList(keepLines)
    this.tools = new EntryList(keepLines)
    this.assistant = new EntryList(keepLines)
    this.earlier = new EntryList(keepLines)
    this.calls = new ToolCalls(actionOf, keepLines)
    this.facts = new FactCandidates(maxFacts, knownFacts)
  }

  /** How many lines each section had, the ones its bounded list dropped included. */
  get totals() {
    const kept = this.calls.kept
    return {
      user: this.user.total,
      assistant: this.assistant.total,
      earlier: this.earlier.total,
      tools: this.tools.total + this.calls.total - kept,
    }
  }

  read(item: Item) {
    switch (item.type) {
      case 'message':
        if (item.scope === undefined) {
          this.message(item)
        } else {
          this.inputChars += item.scope.title.length
          this.earlier.add(clip(`Opened ${item.level} "${item.scope.title}".`, LINE_CHARS.earlier))
        }
        break
      case 'summary':
        this.inputChars += item.text.length
        this.summary(item.text)
        break
      case 'fact':
        this.inputChars += item.text.length
        break
      case 'transition':
        // The nested scope's summary item, beside its transition, carries what it did.
        break
    }
  }

  /** Ends the reading: the tool lines join their section, after the lines of summaries read. */
  finish() {
    for (const line of this.calls.lines()) this.tools.add(line)
  }

  message(item: MessageItem) {
    const texts: string[] = []
    for (const part of item.content) {
      if (part.type === 'text') {
        this.inputChars += part.text.length
        texts.push(part.text)
      } else if (part.type === 'file') {
        if (part.filename) texts.push(`[file ${part.filename}]`)
      } else if (part.type === 'tool-call') {
        const scan = this.#scan.scan(part.input)
        if (this.inputChars < this.#enoughChars) this.inputChars += sizeOf(part.input, scan)
        this.calls.call(part.toolCallId, part.toolName, part.input, scan, this.#elsewhere())
        scan.clear()
      } else if (part.type === 'tool-result') {
        const scan = this.#scan.scan(part.output)
        if (this.inputChars < this.#enoughChars) this.inputChars += sizeOf(part.output, scan)
        this.calls.result(part.toolCallId, part.toolName, part.output, part.isError === true, scan)
        if (part.isError !== true) resultIdentifiers(part.output, scan, this.#elsewhere())
        scan.clear()
      }
    }
    const text = texts.length === 1 ? texts[0]! : texts.join('\n')
    if (!holdsNonSpace(text)) return
    if (item.role === 'user') this.userText(text)
    else if (item.role === 'assistant') this.assistantText(text)
  }

  /**
   * A user's message: its first sentences (up to {@link OPENING_CHARS}) say what was asked; later ones
   * stay when they state something (a name, a preference, a decision: also a fact) or hold an
   * identifier.
   */
  userText(text: string) {
    const kept: string[] = []
    let length = 0
    const all = sentences(text)
    this.facts.userMessage(all)
    for (const sentence of all) {
      this.#identified = false
      findIdentifiers(sentence, this.#takeUsers)
      const opening = length === 0 || length + sentence.length <= OPENING_CHARS
      // What the sentence states is asked only when nothing else keeps it.
      const keep = opening || this.#identified || statementKind(sentence) !== undefined
      if (keep && length < LINE_CHARS.user) {
        kept.push(sentence)
        length += sentence.length + 1
      }
    }
    // The sentences are collapsed already, and so is their join.
    this.user.add(clipCollapsed(kept.join(' '), LINE_CHARS.user))
  }

  /** An answer: its first sentence, and its identifiers. */
  assistantText(text: string) {
    // Split once: the first sentence's line and the facts read the same sentences.
    const all = sentences(text)
    if (all[0] !== undefined) this.assistant.add(clipCollapsed(all[0], LINE_CHARS.assistant))
    const taker = this.#elsewhere()
    findIdentifiers(text, taker.found, taker.full)
    this.facts.answer(text, all)
  }

  /** A summary among the items: its lines go back to their sections, its identifiers with the user's. */
  summary(text: string) {
    const parsed = parseSummaryText(text)
    for (const line of parsed.earlier) this.earlier.add(clip(line, LINE_CHARS.earlier))
    for (const line of parsed.user) this.user.add(line)
    for (const line of parsed.tools) this.tools.add(line)
    for (const line of parsed.assistant) this.assistant.add(line)
    for (const identifier of parsed.identifiers) this.identifiers.user.add(identifier)
  }
}

/**
 * The identifiers of a successful tool result (`scan`: the output walked), for the `Identifiers:` line:
 * a text's, or those of a JSON result's strings, at most {@link READ_CHARS} characters in all.
 */
function resultIdentifiers(output: JsonValue, scan: JsonScan, taker: IdentifierTaker) {
  if (typeof output === 'string') findIdentifiers(output, taker.found, taker.full)
  else leafIdentifiers(scan, false, taker)
}

/** About the characters of a JSON value (`scan`: the value walked; its scalars and keys, a bounded walk). */
function sizeOf(value: JsonValue, scan: JsonScan): number {
  if (typeof value === 'string') return value.length
  if (value === null || typeof value !== 'object') return String(value).length
  return scan.size(READ_CHARS * 4)
}
