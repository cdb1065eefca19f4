import { invalidOptions, StrataError } from '../errors'
import { assertSerializable, type JsonValue } from '../items'
import type { StoreResourceMethods, VersionedValue } from '../stores'
import type { TokenCounter } from '../tokens'
import { schemaProblem } from './json-schema-check'
import type { ResolvedResourceOptions } from './resource-options'

/** The working memory as the model reads it: text as is, JSON as compact JSON. */
export function workingMemoryText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/**
 * Checks a working-memory write before anything is written: JSON-safe, within the schema when the
 * memory has one, within `maxTokens`. `STRATA_INVALID_OPTIONS` saying what to change otherwise.
 */
export function checkWorkingMemory(
  resourceId: string,
  value: unknown,
  options: ResolvedResourceOptions['workingMemory'],
  counter: TokenCounter,
): asserts value is JsonValue {
  if (value === undefined)
    invalidOptions(`setWorkingMemory('${resourceId}'): pass the new working memory, text or JSON.`)
  assertSerializable(value, 'workingMemory')
  if (options.schema !== undefined) {
    const problem = schemaProblem(value as JsonValue, options.schema)
    if (problem !== undefined) {
      invalidOptions(
        `setWorkingMemory('${resourceId}'): the value does not fit the working-memory schema: ${problem}. Nothing was written; write a value the schema accepts.`,
        { resourceId, problem },
      )
    }
  }
  const tokens = counter.count(workingMemoryText(value as JsonValue))
  if (tokens > options.maxTokens) {
    invalidOptions(
      `setWorkingMemory('${resourceId}'): the working memory would take ${tokens} tokens, over its ${options.maxTokens} (resources.workingMemory.maxTokens). Nothing was written; keep it shorter (only what stays true about the resource).`,
      { resourceId, tokens, maxTokens: options.maxTokens },
    )
  }
}

/**
 * Writes a checked working memory with the store's version check. A `version` that is not a whole
 * number ≥ 0 is `STRATA_INVALID_OPTIONS`; a stale one is the store's `STRATA_SEQ_CONFLICT`.
 */
export async function writeWorkingMemory(
  store: StoreResourceMethods,
  resourceId: string,
  value: unknown,
  version: unknown,
  options: ResolvedResourceOptions['workingMemory'],
  counter: TokenCounter,
): Promise<VersionedValue> {
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0) {
    invalidOptions(
      `setWorkingMemory('${resourceId}', value, { version }): version must be the version you read (getWorkingMemory().version, or 0 when there was none).`,
      { resourceId, version },
    )
  }
  checkWorkingMemory(resourceId, value, options, counter)
  return store.setWorkingMemory(resourceId, value, { expectedVersion: version })
}

/** True for the store's refusal of a stale working-memory version. */
export const isVersionConflict = (error: unknown) => StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT')

/**
 * The working memory's slot text, within `maxTokens` (a longer stored value, written under other
 * options, is cut and says so), with the version a write must name: `[MEMORY:WORKING version=N]`.
 * The template stands in, at version 0, before the first write; nothing when there is neither.
 */
export function workingMemorySlot(
  stored: VersionedValue | undefined,
  options: ResolvedResourceOptions['workingMemory'],
  counter: TokenCounter,
): string | undefined {
  const text = stored === undefined ? options.template : workingMemoryText(stored.value)
  if (text === undefined || text.length === 0) return undefined
  return `[MEMORY:WORKING version=${stored?.version ?? 0}]\n${cutToTokens(text, options.maxTokens, counter)}`
}

const CUT_MARK = ' … [cut: working memory over its token limit]'

/** `text`, or its longest prefix that with a cut mark fits `maxTokens`. */
export function cutToTokens(text: string, maxTokens: number, counter: TokenCounter): string {
  if (counter.count(text) <= maxTokens) return text
  let low = 0
  let high = text.length
  while (low < high) {
    const middle = Math.ceil((low + high) / 2)
    if (counter.count(text.slice(0, middle) + CUT_MARK) <= maxTokens) low = middle
    else high = middle - 1
  }
  return text.slice(0, low) + CUT_MARK
}
