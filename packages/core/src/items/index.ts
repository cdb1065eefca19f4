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
} from './app-thread-id'
export type {
  FactItem,
  Item,
  ItemBase,
  ItemType,
  MessageItem,
  PartTokens,
  ScopeOpening,
  SeqRange,
  SummaryCompaction,
  SummaryItem,
  SummaryTier,
  TransitionItem,
  TransitionReason,
  UnsequencedItem,
} from './item'
export { type JsonObject, type JsonValue, jsonCopy, plainJson } from './json'
export type { MessageInput } from './message-input'
export type {
  FilePart,
  MessagePart,
  MessageRole,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolResultPart,
} from './message-part'
export { fromModelMessage, isTypedToolOutput } from './model-message'
export {
  type MessageFormat,
  type NormalizedMessage,
  type NormalizeOptions,
  normalizeMessage,
} from './normalize-message'
export { assertSerializable, MAX_JSON_DEPTH, MAX_JSON_SIZE } from './serializable'
export { assertThreadId, isValidThreadId } from './thread-id'
export { startsTurn, turnNumber } from './turns'
