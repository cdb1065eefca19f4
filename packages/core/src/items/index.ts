export type {
  FactItem,
  Item,
  ItemBase,
  ItemType,
  MessageItem,
  ScopeOpening,
  SeqRange,
  SummaryItem,
  SummaryTier,
  TransitionItem,
  TransitionReason,
  UnsequencedItem,
} from './item'
export { type JsonObject, type JsonValue, jsonCopy } from './json'
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
export { type NormalizedMessage, normalizeMessage } from './normalize-message'
export { assertSerializable } from './serializable'
export { assertThreadId, isValidThreadId } from './thread-id'
export { startsTurn, turnNumber } from './turns'
