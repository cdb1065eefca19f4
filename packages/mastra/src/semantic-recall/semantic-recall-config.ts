import { invalidOptions } from '@strata-memory/core'

/** Mastra's `semanticRecall`, as a run uses it. */
export interface SemanticRecallSettings {
  /** How many matches to show, best first. */
  topK: number
  /** Messages shown before and after each match. */
  before: number
  after: number
  /** Where to look: the run's thread, or every thread of its resource (Mastra's default). */
  scope: 'thread' | 'resource'
}

/** What `semanticRecall: true` means here. */
export const DEFAULT_SEMANTIC_RECALL: SemanticRecallSettings = {
  topK: 4,
  before: 1,
  after: 1,
  scope: 'resource',
}

/** Options of Mastra's `semanticRecall` that belong to a vector store: Strata ranks with its own index. */
const VECTOR_OPTIONS = ['filter', 'threshold', 'indexConfig', 'indexName'] as const

const count = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 0

const asObject = (value: unknown, label: string, where: string): Record<string, unknown> | undefined => {
  if (value === undefined || value === null || value === false) return undefined
  if (value === true) return {}
  if (typeof value !== 'object' || Array.isArray(value))
    invalidOptions(`${where}: ${label} must be true, false or an object like { topK: 3, messageRange: 2 }.`)
  return value as Record<string, unknown>
}

/**
 * Mastra's `semanticRecall` of the memory and of a call, merged (the call's fields win; `false` on the
 * call turns it off) and checked: the recall a run does, or undefined when it is off. A vector store's
 * options (`filter`, `threshold`, `indexConfig`, `indexName`) are `STRATA_INVALID_OPTIONS`: Strata
 * ranks with its own index (words, and embeddings with `createMemory({ embedder })`).
 */
export function resolveSemanticRecall(
  memoryLevel: unknown,
  callLevel: unknown,
  where: string,
): SemanticRecallSettings | undefined {
  if (callLevel === false) return undefined
  const base = asObject(memoryLevel, 'semanticRecall', where)
  const call = asObject(callLevel, 'the call’s semanticRecall', where)
  if (base === undefined && call === undefined) return undefined
  const merged = { ...base, ...call }
  const asked = VECTOR_OPTIONS.filter((name) => merged[name] !== undefined)
  if (asked.length > 0) {
    invalidOptions(
      `${where}: semanticRecall.${asked.join(', semanticRecall.')} belong${asked.length > 1 ? '' : 's'} to a vector store; Strata ranks with its own index (words, and embeddings with createMemory({ embedder })): leave ${asked.length > 1 ? 'them' : 'it'} out.`,
      { options: asked.map((name) => `semanticRecall.${name}`) },
    )
  }
  const { topK = DEFAULT_SEMANTIC_RECALL.topK, messageRange = 1, scope = 'resource' } = merged
  if (!count(topK) || (topK as number) < 1 || (topK as number) > 50)
    invalidOptions(`${where}: semanticRecall.topK must be an integer from 1 to 50.`, { topK })
  let before: unknown = messageRange
  let after: unknown = messageRange
  if (typeof messageRange === 'object' && messageRange !== null) {
    before = (messageRange as { before?: unknown }).before ?? 0
    after = (messageRange as { after?: unknown }).after ?? 0
  }
  if (!count(before) || !count(after) || (before as number) > 20 || (after as number) > 20) {
    invalidOptions(
      `${where}: semanticRecall.messageRange must be an integer from 0 to 20, or { before, after } of such integers.`,
      { messageRange },
    )
  }
  if (scope !== 'thread' && scope !== 'resource')
    invalidOptions(
      `${where}: semanticRecall.scope must be 'thread' or 'resource' (got ${JSON.stringify(scope)}).`,
    )
  return { topK: topK as number, before: before as number, after: after as number, scope }
}

/** Settings in Mastra's own `semanticRecall` shape (`messageRange: { before, after }`). */
export const asMastraSemanticRecall = ({ topK, before, after, scope }: SemanticRecallSettings) => ({
  topK,
  messageRange: { before, after },
  scope,
})
