/**
 * `@strata-memory/core/adapter-kit`: what a framework adapter needs beside the app's API (the root
 * entry): the checks of the options every adapter takes, the failed-thread memory, following the
 * history a framework sends, transition events for a UI, the memory tools' schemas as one source each
 * adapter turns into its framework's schema type, and the mapping of an app's thread ids. An app that
 * only uses adapters never imports this.
 */

// History following: the rules live beside the thread (core's own appends use them); adapters reach them here.
export {
  type ComparableMessage,
  type HistoryMode,
  messageFingerprint,
  notContinuing,
  readConversationTail,
  type UnseenMessagesOptions,
  type UnseenMessagesResult,
  unseenMessages,
} from '../history'
// Thread-id mapping: the app's ids (any string) onto store thread ids, as every adapter and the CLI map them.
export {
  APP_THREAD_ID_STATE_KEY,
  appThreadIdOf,
  assertMappableThreadId,
  escapeThreadIdBytes,
  isHashedThreadId,
  MAPPED_THREAD_ID_PREFIX,
  quotedThreadId,
  shortenThreadId,
  toStoreThreadId,
  unescapeThreadIdBytes,
} from '../items'
export {
  type DivergenceHandling,
  type FollowHistoryOptions,
  failureCode,
  followHistory,
  markRequestFailed,
  openAppThread,
  readAppThreadId,
} from '../memory'
export {
  ADAPTER_OPTION_KEYS,
  type AdapterOptions,
  type CheckedAdapterOptions,
  checkAdapterOptions,
  checkMemoryArgument,
  checkMemoryOption,
  checkOneOf,
  checkOptionKeys,
  checkResourceOption,
  DIVERGENCE_HANDLINGS,
  HISTORY_MODES,
  nearestKey,
  type OptionKeys,
} from './adapter-options'
export { FailedThreads, type FailOptions, MAX_FAILED_THREADS } from './failed-threads'
export {
  type AdapterPartMeta,
  adapterPartMeta,
  fromToolOutput,
  type PlainToolOutput,
  type PlainToolOutputKind,
  partsText,
  providerToolCall,
  toolCallPart,
  toolOutputKind,
  toolResultPart,
  toToolOutput,
} from './prompt-parts'
export {
  buildToolSchema,
  MEMORY_TOOL_NAMES,
  type MemoryToolInputs,
  type MemoryToolSchemaName,
  memoryToolDefinitions,
  memoryToolInputSchemas,
  memoryToolSchemasWith,
  normalizedToolSchema,
  type SchemaBuilder,
  type ToolDefinition,
  workingToolDefinition,
  type ZodLike,
  type ZodLikeNumber,
  type ZodLikeSchema,
  zodSchemaBuilder,
} from './tool-schemas'
export { type TransitionEventData, transitionEventData, withThreadTransitions } from './transition-events'
