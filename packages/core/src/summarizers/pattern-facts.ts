import type { JsonValue } from '../items'
import { normalizeFactText } from '../items/facts'
import type { SummarizedFact } from './summarizer'
import { clip, findIdentifiers, isIdentifier, jsonLeaves, READ_CHARS, type StatementKind } from './text-gist'

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
export class FactCandidates {
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
