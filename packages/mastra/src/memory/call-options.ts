import type { MemoryConfig } from '@mastra/core/memory'
import { StrataError, shownValue } from '@strata-memory/core'
import { nearestKey, type OptionKeys } from '@strata-memory/core/adapter-kit'
import { resolveSemanticRecall } from '../semantic-recall/semantic-recall-config'
import { resolveWorkingMemory } from '../working-memory/working-memory-config'
import { resolveLastMessages } from './last-messages'
import { resolveMessageHistory } from './message-history'

/** The memory options of one agent call, as Mastra passes them (`memory: { options }`, merged with the memory's). */
export interface CallMemoryOptions {
  readOnly?: boolean
  lastMessages?: number | false
  messageHistory?: unknown
  semanticRecall?: unknown
  workingMemory?: unknown
  observationalMemory?: unknown
}

/** What each Mastra memory option Strata does not take is, in Strata. */
const EQUIVALENTS: Record<
  Exclude<
    keyof CallMemoryOptions,
    'readOnly' | 'workingMemory' | 'semanticRecall' | 'lastMessages' | 'messageHistory'
  >,
  string
> = {
  observationalMemory:
    'Strata compacts old turns into summaries and facts itself: use budget compaction with an LLM summarizer, createMemory({ summarizer: mastraSummarizer({ agent }), compaction: { budget: { inputTokens } } })',
}

/** Whether an option is on in the call's config (Strata's own memory config turns each of them off). */
const isOn = (name: keyof typeof EQUIVALENTS, value: unknown) => {
  if (value === undefined || value === false || value === null) return false
  if (name === 'observationalMemory') {
    return typeof value !== 'object' || (value as { enabled?: unknown }).enabled !== false
  }
  return true
}

/**
 * The refusal of a call that asks for a Mastra memory option `StrataMemory` does not implement, or
 * undefined: such an option is never ignored in silence. The message names the option and what does
 * its work in Strata.
 */
export function unsupportedCallOptions(config: CallMemoryOptions | undefined): StrataError | undefined {
  if (config === undefined) return undefined
  const asked = (Object.keys(EQUIVALENTS) as (keyof typeof EQUIVALENTS)[]).filter((name) =>
    isOn(name, config[name]),
  )
  if (asked.length === 0) return undefined
  return new StrataError({
    code: 'STRATA_INVALID_OPTIONS',
    message: `StrataMemory does not take the memory option${asked.length > 1 ? 's' : ''} ${asked.join(', ')} of this call. ${asked.map((name) => `${name}: ${EQUIVALENTS[name]}.`).join(' ')} Nothing was stored.`,
    details: { options: asked, reason: 'unsupported' },
  })
}

/** Every key of Mastra's `MemoryConfig`: a key a later Mastra adds fails this list's type check. */
const MASTRA_MEMORY_KEYS = {
  readOnly: true,
  lastMessages: true,
  messageHistory: true,
  semanticRecall: true,
  workingMemory: true,
  observationalMemory: true,
  generateTitle: true,
  filterIncompleteToolCalls: true,
  retainFullInput: true,
  threads: true,
} as const satisfies OptionKeys<MemoryConfig>

/**
 * The refusal of a call's memory option that is none of Mastra's but looks like one (`lastMesages`):
 * ignored, the call would run without what it asked for. A key like none of them is left as it is
 * (Mastra's to judge: a later Mastra may add options).
 */
function misspeltCallOption(config: object, where: string): StrataError | undefined {
  const known = Object.keys(MASTRA_MEMORY_KEYS)
  for (const key of Object.keys(config)) {
    if (Object.hasOwn(MASTRA_MEMORY_KEYS, key)) continue
    const suggestion = nearestKey(key, known)
    if (suggestion === undefined) continue
    return new StrataError({
      code: 'STRATA_INVALID_OPTIONS',
      message: `${where}: memory.options has no option '${key}' (did you mean '${suggestion}'?). Nothing was stored.`,
      details: { option: key, suggestion },
    })
  }
  return undefined
}

/**
 * Why a call's memory options (merged over the memory's own) are refused — a bad value of an option
 * Strata takes, or an option it does not take — or undefined.
 */
export function refusedCallOptions(
  memoryLevel: Omit<CallMemoryOptions, 'readOnly'>,
  config: CallMemoryOptions | undefined,
): unknown {
  const where = 'agent.generate()'
  const readOnly = config?.readOnly
  if (readOnly !== undefined && typeof readOnly !== 'boolean') {
    // Read as false it would let the call write, which is the opposite of what it likely asked.
    return new StrataError({
      code: 'STRATA_INVALID_OPTIONS',
      message: `${where}: memory.options.readOnly must be true or false (got ${shownValue(readOnly)}). Nothing was stored.`,
      details: { option: 'readOnly', value: shownValue(readOnly) },
    })
  }
  const misspelt = config === undefined ? undefined : misspeltCallOption(config, where)
  if (misspelt !== undefined) return misspelt
  try {
    resolveWorkingMemory(memoryLevel.workingMemory, config?.workingMemory, where)
    resolveSemanticRecall(memoryLevel.semanticRecall, config?.semanticRecall, where)
    resolveLastMessages(memoryLevel.lastMessages, config?.lastMessages, where)
    resolveMessageHistory(memoryLevel.messageHistory, config?.messageHistory, where)
  } catch (error) {
    return error
  }
  return unsupportedCallOptions(config)
}
