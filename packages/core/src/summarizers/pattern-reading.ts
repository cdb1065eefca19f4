import type { Item, JsonValue, MessageItem } from '../items'
import { parseSummaryText } from './pattern-layout'
import type { SummarizedFact } from './summarizer'
import {
  clip,
  findIdentifiers,
  isIdentifier,
  jsonGist,
  jsonLeaves,
  READ_CHARS,
  sentences,
  statementKind,
} from './text-gist'

/** Longest entry of each kind, in characters. */
export const ENTRY_CHARS = { user: 300, tool: 200, assistant: 160, earlier: 240 } as const

/** Lines of one section, each once, in order of first appearance, with how often each came. */
export class EntryList {
  readonly #entries = new Map<string, number>()

  add(text: string) {
    if (text.length > 0) this.#entries.set(text, (this.#entries.get(text) ?? 0) + 1)
  }

  /** The lines, a repeated one marked `(×N)`. */
  lines(): string[] {
    return [...this.#entries].map(([text, count]) => (count > 1 ? `${text} (×${count})` : text))
  }
}

/** A fact candidate, with where it came from (`order`) so the newest can be chosen. */
export interface FactCandidate {
  fact: SummarizedFact
  source: 'user' | 'result'
  order: number
}

/** What the pattern summarizer read from the items. */
export class PatternReading {
  readonly actions = new Map<string, number>()
  failed = 0
  readonly user = new EntryList()
  readonly tools = new EntryList()
  readonly assistant = new EntryList()
  readonly earlier = new EntryList()
  /** Identifiers by where they were found, each once, in order of last appearance. */
  readonly identifiers = { user: new Map<string, true>(), results: new Map<string, true>() }
  readonly facts: FactCandidate[] = []
  /** About how many characters the items hold (what the summary replaces). */
  inputChars = 0
  readonly #actionOf: (toolName: string, input: JsonValue) => string
  /** Tool calls not yet matched to their result, by call id: the index of their line in `#calls`. */
  readonly #open = new Map<string, number>()
  readonly #calls: { head: string; outcome?: string }[] = []

  constructor(actionOf: (toolName: string, input: JsonValue) => string) {
    this.#actionOf = actionOf
  }

  read(item: Item) {
    switch (item.type) {
      case 'message':
        if (item.scope !== undefined) {
          this.inputChars += item.scope.title.length
          this.earlier.add(clip(`Opened ${item.level} "${item.scope.title}".`, ENTRY_CHARS.earlier))
        } else {
          this.#message(item)
        }
        break
      case 'summary':
        this.inputChars += item.text.length
        this.#summary(item.text)
        break
      case 'fact':
        this.inputChars += item.text.length
        break
      case 'transition':
        // The nested scope's summary item, beside its transition, carries what it did.
        break
    }
  }

  /** The tool lines, in the order of the calls, each with its result's gist once it came. */
  finish() {
    for (const call of this.#calls) this.tools.add(clip(call.head + (call.outcome ?? ''), ENTRY_CHARS.tool))
    this.#calls.length = 0
    this.#open.clear()
  }

  #identifier(into: Map<string, true>, identifier: string) {
    // Moved to the end: the newest mentions are the ones kept when there are too many.
    into.delete(identifier)
    into.set(identifier, true)
  }

  #message(item: MessageItem) {
    const texts: string[] = []
    for (const part of item.content) {
      switch (part.type) {
        case 'text':
          this.inputChars += part.text.length
          texts.push(part.text)
          break
        case 'file':
          this.inputChars += part.filename?.length ?? 0
          if (part.filename) texts.push(`[file ${part.filename}]`)
          break
        case 'tool-call':
          this.#toolCall(part.toolCallId, part.toolName, part.input)
          break
        case 'tool-result':
          this.#toolResult(part.toolCallId, part.toolName, part.output, part.isError === true)
          break
        case 'reasoning':
          break
      }
    }
    const text = texts.join('\n')
    if (text.trim().length === 0) return
    if (item.role === 'user') this.#userText(text)
    else if (item.role === 'assistant') this.#assistantText(text)
  }

  #userText(text: string) {
    const all = sentences(text)
    // The first sentences say what was asked; later ones stay when they state something or name an id.
    const kept: string[] = []
    let length = 0
    all.forEach((sentence, index) => {
      const kind = statementKind(sentence)
      let hasIdentifier = false
      findIdentifiers(sentence, (identifier) => {
        hasIdentifier = true
        this.#identifier(this.identifiers.user, identifier)
      })
      if (kind !== undefined) {
        const quoted = clip(sentence, 200).replace(/…$/, '')
        this.facts.push({
          fact: {
            text: `User said: "${quoted}"`,
            tags: kind === 'decision' ? ['user'] : ['user', kind],
            confidence: 0.9,
          },
          source: 'user',
          order: this.facts.length,
        })
      }
      if ((index < 2 || kind !== undefined || hasIdentifier) && length < ENTRY_CHARS.user) {
        kept.push(sentence)
        length += sentence.length + 1
      }
    })
    this.user.add(clip(kept.join(' '), ENTRY_CHARS.user))
  }

  #assistantText(text: string) {
    const [first] = sentences(text.slice(0, 1_000))
    if (first !== undefined) this.assistant.add(clip(first, ENTRY_CHARS.assistant))
    findIdentifiers(text, (identifier) => this.#identifier(this.identifiers.results, identifier))
  }

  #toolCall(toolCallId: string, toolName: string, input: JsonValue) {
    const label = clip(this.#actionOf(toolName, input), 40)
    this.actions.set(label, (this.actions.get(label) ?? 0) + 1)
    this.inputChars += sizeOf(input)
    const args = input === null || (typeof input === 'object' && Object.keys(input).length === 0)
    const head = `${clip(toolName, 40)}(${args ? '' : jsonGist(input, { max: 100, separator: '=' })})`
    this.#open.set(toolCallId, this.#calls.length)
    this.#calls.push({ head })
    let budget = READ_CHARS
    for (const leaf of jsonLeaves(input, 64)) {
      if (typeof leaf.value !== 'string' || budget <= 0) continue
      findIdentifiers(leaf.value.slice(0, budget), (identifier) =>
        this.#identifier(this.identifiers.results, identifier),
      )
      budget -= leaf.value.length
    }
  }

  #toolResult(toolCallId: string, toolName: string, output: JsonValue, failed: boolean) {
    this.inputChars += sizeOf(output)
    if (failed) this.failed++
    const gist = jsonGist(output, { max: 120, separator: ': ' })
    const outcome = failed ? ` failed: ${gist}` : gist.length > 0 ? ` → ${gist}` : ''
    const index = this.#open.get(toolCallId)
    if (index !== undefined) {
      this.#open.delete(toolCallId)
      this.#calls[index]!.outcome = outcome
    } else {
      this.#calls.push({ head: clip(toolName, 40), outcome })
    }
    if (failed) return
    const label = /^[\w.-]{1,40}$/.test(toolName) ? toolName : 'tool'
    const found = (identifier: string) => this.#identifier(this.identifiers.results, identifier)
    if (typeof output === 'string') {
      findIdentifiers(output, (identifier) => {
        found(identifier)
        if (isIdentifier(identifier)) this.#resultFact(`${label} result: ${identifier}`)
      })
      return
    }
    // Every string of a result is searched, up to READ_CHARS characters in all.
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
        this.#resultFact(`${key} (${label}): ${text}`)
    }
  }

  #resultFact(text: string) {
    this.facts.push({
      fact: { text, tags: ['result'], confidence: 0.8 },
      source: 'result',
      order: this.facts.length,
    })
  }

  /** A summary among the items: its lines go back into their sections, its identifiers with the user's. */
  #summary(text: string) {
    const parsed = parseSummaryText(text)
    for (const line of parsed.earlier) this.earlier.add(clip(line, ENTRY_CHARS.earlier))
    for (const line of parsed.user) this.user.add(line)
    for (const line of parsed.tools) this.tools.add(line)
    for (const line of parsed.assistant) this.assistant.add(line)
    for (const identifier of parsed.identifiers) this.#identifier(this.identifiers.user, identifier)
  }
}

/** The characters of a JSON value, read no further than {@link READ_CHARS} for a string. */
function sizeOf(value: JsonValue): number {
  if (typeof value === 'string') return value.length
  if (value === null || typeof value !== 'object') return String(value).length
  let size = 0
  for (const leaf of jsonLeaves(value)) size += String(leaf.value).length + (leaf.path.at(-1)?.length ?? 0)
  return Math.min(size, READ_CHARS * 4)
}

// The last word of a key that names a value worth a fact: orderId, order_number, customerName, total.
const VALUE_WORDS = new Set([
  'id',
  'ids',
  'number',
  'no',
  'num',
  'code',
  'ref',
  'reference',
  'key',
  'email',
  'url',
  'uri',
  'link',
  'path',
  'file',
  'filename',
  'sku',
  'name',
  'title',
  'status',
  'date',
  'total',
  'amount',
  'price',
  'cost',
  'balance',
  'version',
  'phone',
  'address',
])

function keyNamesValue(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_.-]+/)
  return VALUE_WORDS.has(words.at(-1) ?? '')
}
