import type { MemoryConfig, SemanticRecall, WorkingMemory } from '@mastra/core/memory'
import { type HistoryMode, invalidOptions, shownValue } from '@strata-memory/core'
import {
  type AdapterOptions,
  checkAdapterOptions,
  checkOptionKeys,
  type OptionKeys,
} from '@strata-memory/core/adapter-kit'
import { resolveSemanticRecall } from '../semantic-recall/semantic-recall-config'
import { resolveWorkingMemory } from '../working-memory/working-memory-config'
import { unsupportedCallOptions } from './call-options'
import { resolveLastMessages } from './last-messages'
import { resolveMessageHistory } from './message-history'

/** Options of {@link StrataMemory}. */
export interface StrataMemoryOptions<L extends string = string>
  extends Omit<AdapterOptions<L>, 'resource' | 'onDivergence'> {
  /**
   * The memory's id in Mastra.
   * @default 'strata-memory'
   */
  id?: string
  /**
   * The thread's system prompt, first in its context (the agent's instructions stay, before it).
   * @default none
   */
  system?: string
  /**
   * What a call's messages hold: `'new'` (Mastra's usual call: only the new message), `'full'` (the
   * app re-sends the whole conversation), `'auto'` (told from the stored tail); see core's
   * `appendUnseen`.
   * @default 'new'
   */
  history?: HistoryMode
  /**
   * The memory tools the agent gets through `listTools`: `true` for `memory_store`, `memory_retrieve`
   * and `memory_query`; `{ scopes: true }` adds `enter_scope` and `exit_scope`; `false` for none.
   * @default true
   */
  tools?: boolean | { scopes?: boolean }
  /**
   * Strata's spans (`strata.context`, `strata.compaction`, `strata.summarize`, `strata.store.<op>`) in
   * Mastra's traces: while Mastra observability traces an agent run, they start as its child spans.
   * `false` keeps them out. A tracer the app gave `createMemory({ telemetry: { tracer } })` wins
   * either way: Strata's spans then go to it, not to Mastra.
   * @default true
   */
  telemetry?: boolean
  /**
   * One request at a time per thread: an `agent.generate` or `agent.stream` holds its thread from
   * its input to its result (`thread.hold()`), so a second request on the same thread — here or in
   * another process sharing the store — is refused before it stores anything. Mastra throws its
   * `MastraError` (`AGENT_GENERATE_FAILED`, …) with, in its `cause` chain, a `MastraError` with id
   * `STRATA_THREAD_BUSY` whose `cause` is the `StrataError`: `strataErrorOf(error)?.code` reads it.
   * A request that fails gives the thread back. `ttlMs`: how long the store's lease outlives a
   * process that died holding it.
   * @default { ttlMs: core's default (30 s) }
   */
  hold?: { ttlMs?: number }
  /**
   * Mastra's `readOnly` for every call of this memory's agents (a call may also ask with
   * `memory: { options: { readOnly: true } }`): the model gets the thread's context and the call's
   * own messages, and nothing is stored — no message, no thread record, no compaction, no hold.
   * @default false
   */
  readOnly?: boolean
  /**
   * Mastra's memory options, as `new Memory({ options })` takes them; a call's
   * `memory: { options }` is merged over them. `workingMemory` (`enabled`, a Markdown `template` or
   * a `schema`, `scope: 'resource'` (default) or `'thread'`): see the README.
   * @default {}
   */
  options?: StrataMastraOptions
}

/** The Mastra memory options `StrataMemory` takes (`new StrataMemory({ memory, options })`). */
export interface StrataMastraOptions {
  /** The working memory: a resource's (default) or a thread's, kept by the model with `updateWorkingMemory`. */
  workingMemory?: WorkingMemory
  /**
   * Recall from the conversation history: the `topK` best matches of the request (Strata's ranked
   * recall), each with `messageRange` messages around it, from the thread or from every thread of
   * its resource (`scope`, default `'resource'`). `true`: `{ topK: 4, messageRange: 1 }`.
   */
  semanticRecall?: boolean | SemanticRecall
  /**
   * The most history messages shown before the current request (the request and its steps always
   * are), inside the token budget. Not given: no cap. `false` turns conversation history off, as in
   * Mastra: a run shows its request and its steps only (everything stays stored).
   * @default undefined
   */
  lastMessages?: number | false
  /**
   * Mastra's token budget of the prompt (system messages, history and the current turn): `maxTokens`
   * becomes the thread's input budget (`memory.thread(id, { budget: { inputTokens: maxTokens } })`,
   * under the memory's own `compaction.budget`). The context is fitted to it, and budget compaction
   * summarizes old turns to keep the thread under it; a call's `messageHistory` wins over this.
   * @default none: the memory's `compaction.budget`
   */
  messageHistory?: MemoryConfig['messageHistory'] | false
  /**
   * Mastra's title of a new thread, made by the agent after its response (with the agent's model, or
   * the one given) and kept in the thread record; the title call is never stored in the thread.
   * @default false
   */
  generateTitle?: MemoryConfig['generateTitle']
}

/** The keys of {@link StrataMemoryOptions}: any other is refused (a misspelt `redOnly` would leave a memory that writes). */
const STRATA_MEMORY_OPTION_KEYS = {
  memory: true,
  level: true,
  system: true,
  history: true,
  id: true,
  tools: true,
  telemetry: true,
  hold: true,
  readOnly: true,
  options: true,
} as const satisfies OptionKeys<StrataMemoryOptions>

/**
 * Checks the options of `new StrataMemory()` (`STRATA_INVALID_OPTIONS` naming the bad one); gives
 * them back with their defaults.
 */
export function checkStrataMemoryOptions<L extends string>(options: StrataMemoryOptions<L>) {
  checkOptionKeys('new StrataMemory()', options, STRATA_MEMORY_OPTION_KEYS)
  // memory, level, system and history, as every adapter checks them.
  const { memory, level, system, history } = checkAdapterOptions('new StrataMemory()', options, {
    history: 'new',
  })
  const {
    id = 'strata-memory',
    tools = true,
    telemetry = true,
    hold = {},
    readOnly = false,
    options: mastraOptions = {},
  } = options
  if (typeof id !== 'string' || id.length === 0)
    invalidOptions('StrataMemory: id must be a non-empty string.')
  const scopes = typeof tools === 'object' && tools !== null ? tools.scopes : false
  if (
    typeof tools !== 'boolean' &&
    (typeof tools !== 'object' || tools === null || (scopes !== undefined && typeof scopes !== 'boolean'))
  ) {
    invalidOptions('StrataMemory: tools must be true, false or { scopes: boolean }.')
  }
  if (typeof telemetry !== 'boolean') invalidOptions('StrataMemory: telemetry must be true or false.')
  if (typeof readOnly !== 'boolean') invalidOptions('StrataMemory: readOnly must be true or false.')
  if (typeof hold !== 'object' || hold === null) invalidOptions('StrataMemory: hold must be an object.')
  checkOptionKeys('new StrataMemory({ hold })', hold, { ttlMs: true })
  const { ttlMs } = hold
  if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && ttlMs > 0)) {
    invalidOptions(
      `StrataMemory: hold.ttlMs must be a whole number of milliseconds above 0 (got ${shownValue(ttlMs)}).`,
    )
  }
  if (typeof mastraOptions !== 'object' || mastraOptions === null)
    invalidOptions('StrataMemory: options must be an object like { workingMemory: { enabled: true } }.')
  const refused = unsupportedCallOptions(mastraOptions)
  if (refused !== undefined) throw refused
  resolveWorkingMemory(mastraOptions.workingMemory, undefined, 'new StrataMemory()')
  resolveSemanticRecall(mastraOptions.semanticRecall, undefined, 'new StrataMemory()')
  resolveLastMessages(mastraOptions.lastMessages, undefined, 'new StrataMemory()')
  resolveMessageHistory(mastraOptions.messageHistory, undefined, 'new StrataMemory()')
  const { generateTitle } = mastraOptions
  if (
    generateTitle !== undefined &&
    typeof generateTitle !== 'boolean' &&
    (typeof generateTitle !== 'object' || generateTitle === null)
  ) {
    invalidOptions(
      'StrataMemory: options.generateTitle must be true, false or { model?, instructions?, minMessages? }.',
    )
  }
  return { memory, id, level, system, history, tools, telemetry, readOnly, mastraOptions, scopes, ttlMs }
}
