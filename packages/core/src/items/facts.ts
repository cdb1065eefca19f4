/** The fields fact handling reads: a stored `FactItem`, a summarizer's `SummarizedFact`, or your own. */
export interface FactLike {
  text: string
  tags?: readonly string[]
  /** 0..1 */
  confidence?: number
}

// Trailing sentence punctuation, ASCII and CJK, and the ellipsis.
const TRAILING_PUNCTUATION = /[\s.!?;:,。！？；：，、…]+$/u

/**
 * The key two facts are compared by: Unicode NFKC, lower case, whitespace collapsed to one space,
 * trimmed, trailing punctuation removed. `'The user is  Ana.'` and `'the user is ana'` share a key.
 */
export function normalizeFactText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim().replace(TRAILING_PUNCTUATION, '')
}

/**
 * Merges newly extracted facts into the known ones, deduplicated by {@link normalizeFactText}. The same
 * fact twice is one fact: it keeps the fields of its first occurrence, takes the confidence of its
 * latest occurrence that has one and the union of all tags in order of first appearance, and stands
 * where it was last seen, so a fact confirmed again counts as recent (the context shows the newest
 * facts). Facts whose text normalises to nothing are dropped. Order: by last occurrence, `existing` first.
 *
 * @example
 * mergeFacts([{ text: 'Uses pnpm.', confidence: 0.6 }, { text: 'Likes tea' }], [{ text: 'uses PNPM', confidence: 0.9 }])
 * // [{ text: 'Likes tea' }, { text: 'Uses pnpm.', confidence: 0.9 }]
 */
export function mergeFacts<F extends FactLike>(existing: readonly F[], incoming: readonly F[]): F[] {
  const merged = new Map<string, F>()
  for (const fact of [...existing, ...incoming]) {
    const key = normalizeFactText(fact.text)
    if (key.length === 0) continue
    const earlier = merged.get(key)
    if (earlier === undefined) {
      merged.set(key, fact)
      continue
    }
    const combined: F = { ...earlier }
    if (fact.confidence !== undefined) combined.confidence = fact.confidence
    if (earlier.tags !== undefined || fact.tags !== undefined) {
      combined.tags = [...new Set([...(earlier.tags ?? []), ...(fact.tags ?? [])])]
    }
    // Seen again: it moves to the end, where the newest facts are.
    merged.delete(key)
    merged.set(key, combined)
  }
  return [...merged.values()]
}

/**
 * True when `text` is one of the facts recalled into the context the summarizer read, so it is not
 * stored again as a new fact. Compared by {@link normalizeFactText}.
 */
export function isRecalledFact(text: string, recalled: readonly string[]): boolean {
  const key = normalizeFactText(text)
  return key.length > 0 && recalled.some((fact) => normalizeFactText(fact) === key)
}
