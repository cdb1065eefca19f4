import { MAX_FACTS } from '../../context/render-context'
import type { FactItem } from '../../items'
import { mergeFacts, normalizeFactText } from '../../items/facts'
import type { SummarizedFact } from '../../summarizers'

/** The texts of the facts a context shows (the newest {@link MAX_FACTS}, each once). */
export function recalledFacts(known: readonly FactItem[]): string[] {
  return mergeFacts(known, [])
    .slice(-MAX_FACTS)
    .map((fact) => fact.text)
}

/**
 * The facts worth writing. A fact the thread already knows (same text once normalised) is written again
 * when its confidence changed, or when it had dropped out of the facts a context shows: found again, it
 * is recent again. A fact recalled into the context with the same confidence is not written anew.
 */
export function newFacts(
  known: readonly FactItem[],
  recalled: readonly string[],
  incoming: readonly SummarizedFact[],
): SummarizedFact[] {
  const before = new Map<string, FactItem>()
  for (const fact of mergeFacts(known, [])) before.set(normalizeFactText(fact.text), fact)
  const shown = new Set(recalled.map(normalizeFactText))
  const fresh: SummarizedFact[] = []
  for (const fact of mergeFacts<SummarizedFact>([], incoming)) {
    const earlier = before.get(normalizeFactText(fact.text))
    if (earlier === undefined) {
      fresh.push(fact)
      continue
    }
    const confidence = fact.confidence ?? earlier.confidence
    const shownAlready = shown.has(normalizeFactText(fact.text))
    if (shownAlready && confidence === earlier.confidence) continue
    // Written as the thread first wrote it, with the tags of both and the latest confidence.
    const [merged] = mergeFacts<SummarizedFact>([{ text: earlier.text, tags: earlier.tags }], [fact])
    fresh.push({ ...merged!, ...(confidence === undefined ? {} : { confidence }) })
  }
  return fresh
}
