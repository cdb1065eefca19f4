import { termsOf } from '../content/search-terms'
import type { Embedder } from '../resources'

/** Options of {@link testEmbedder}. */
export interface TestEmbedderOptions {
  /**
   * Groups of words that mean the same (`[['car', 'automobile'], ['buy', 'purchase']]`): the words of
   * a group share one dimension, so a paraphrase lands near its original.
   * @default []
   */
  concepts?: readonly (readonly string[])[]
  /** @default 256 */
  dimensions?: number
  /** @default 'strata-test-embedder' */
  model?: string
}

/** A deterministic {@link Embedder} for tests, and how many texts it was asked to embed. */
export interface TestEmbedder extends Embedder {
  /** The texts embedded so far, in order. */
  readonly embedded: string[]
}

/** FNV-1a: the same bucket for the same word, on every run. */
function bucket(word: string, dimensions: number): number {
  let hash = 0x811c9dc5
  for (let index = 0; index < word.length; index++) {
    hash ^= word.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0) % dimensions
}

/**
 * An offline, deterministic embedder for tests and benchmarks: a text's vector counts its words
 * (Strata's own word folding: case, accents, plurals), each word of a `concepts` group counted as the
 * group's first word, hashed into `dimensions` buckets and normalised. Texts sharing words or
 * concepts are near; nothing else is known. Not a language model: use a real embedder in production.
 *
 * @example
 * const embedder = testEmbedder({ concepts: [['car', 'automobile', 'vehicle']] })
 * const memory = createMemory({ embedder })
 */
export function testEmbedder({
  concepts = [],
  dimensions = 256,
  model = 'strata-test-embedder',
}: TestEmbedderOptions = {}): TestEmbedder {
  const canonical = new Map<string, string>()
  for (const group of concepts) {
    const [head] = group.flatMap((word) => termsOf(word))
    if (head === undefined) continue
    for (const word of group) for (const term of termsOf(word)) canonical.set(term, head)
  }
  const embedded: string[] = []
  return {
    model,
    embedded,
    async embed(texts) {
      embedded.push(...texts)
      return texts.map((text) => {
        const vector = new Float32Array(dimensions)
        for (const term of termsOf(text)) vector[bucket(canonical.get(term) ?? term, dimensions)]! += 1
        let norm = 0
        for (const value of vector) norm += value * value
        if (norm > 0) for (let index = 0; index < dimensions; index++) vector[index]! /= Math.sqrt(norm)
        return vector
      })
    },
  }
}
