import type { IndexedEntry } from '../content/thread-index'
import { invalidOptions } from '../errors'
import type { StoreResourceMethods } from '../stores'
import { vectorIdOf } from './resource-recall'
import type { Embedder } from './resource-types'

/** The characters of an entry an embedding reads: its start, where what it is about is said. */
const EMBED_CHARS = 2_000
/** Texts per `embed` call. */
const EMBED_BATCH = 64

/** Checks `createMemory({ embedder })`: an object with a `model` name and an `embed` function. */
export function checkEmbedder(embedder: unknown): Embedder | undefined {
  if (embedder === undefined) return undefined
  const candidate = embedder as Partial<Embedder> | null
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.model !== 'string' ||
    candidate.model === '' ||
    typeof candidate.embed !== 'function'
  ) {
    invalidOptions(
      'createMemory(): embedder must be an object like { model: "my-model", embed: (texts) => Promise<Float32Array[]> }.',
    )
  }
  return candidate as Embedder
}

/** Embeds `texts` in batches, checking that the embedder answered one vector per text. */
export async function embedAll(embedder: Embedder, texts: readonly string[]): Promise<Float32Array[]> {
  const vectors: Float32Array[] = []
  for (let start = 0; start < texts.length; start += EMBED_BATCH) {
    const batch = texts.slice(start, start + EMBED_BATCH).map((text) => text.slice(0, EMBED_CHARS))
    const answered = await embedder.embed(batch)
    if (!Array.isArray(answered) || answered.length !== batch.length)
      throw new Error(
        `The embedder '${embedder.model}' answered ${answered?.length} vectors for ${batch.length} texts.`,
      )
    vectors.push(...answered)
  }
  return vectors
}

/** Cosine similarity; 0 when either vector is all zeros or their lengths differ. */
export function cosine(left: Float32Array, right: Float32Array): number {
  if (left.length !== right.length) return 0
  let dot = 0
  let leftNorm = 0
  let rightNorm = 0
  for (let index = 0; index < left.length; index++) {
    dot += left[index]! * right[index]!
    leftNorm += left[index]! * left[index]!
    rightNorm += right[index]! * right[index]!
  }
  return leftNorm === 0 || rightNorm === 0 ? 0 : dot / Math.sqrt(leftNorm * rightNorm)
}

/**
 * Each entry's cosine similarity to `text`: the stored vectors of the embedder's model, and those not
 * stored yet embedded now and stored beside their thread's data (a thread's appends are embedded in
 * the background, so a warm resource embeds only its query).
 */
export async function similarities(
  store: StoreResourceMethods,
  embedder: Embedder,
  entries: readonly IndexedEntry[],
  text: string,
): Promise<Map<IndexedEntry, number>> {
  const byThread = new Map<string, { id: string; entry: IndexedEntry }[]>()
  for (const entry of entries) {
    const list = byThread.get(entry.origin.threadId) ?? []
    list.push({ id: vectorIdOf(entry.origin), entry })
    byThread.set(entry.origin.threadId, list)
  }
  const [[query], threads] = await Promise.all([
    embedAll(embedder, [text]),
    Promise.all(
      [...byThread].map(async ([threadId, wanted]) => {
        const stored = new Map(
          (await store.readVectors(threadId, { model: embedder.model })).map((record) => [
            record.id,
            record.vector,
          ]),
        )
        const missing = wanted.filter(({ id }) => !stored.has(id))
        if (missing.length > 0) {
          const vectors = await embedAll(
            embedder,
            missing.map(({ entry }) => entry.entry.text),
          )
          const records = missing.map(({ id }, index) => ({
            id,
            model: embedder.model,
            vector: vectors[index]!,
          }))
          await store.putVectors(threadId, records)
          for (const record of records) stored.set(record.id, record.vector)
        }
        return wanted.map(({ id, entry }) => [entry, stored.get(id)!] as const)
      }),
    ),
  ])
  const result = new Map<IndexedEntry, number>()
  for (const pairs of threads) for (const [entry, vector] of pairs) result.set(entry, cosine(query!, vector))
  return result
}
