// The package entry names everything it exports: a name missing here is internal. Store authors'
// helpers (argument checks, the content query matcher) are exported for the store packages.
// `public-api.test.ts` lists these names; adding one is a decision.
export type {
  AutoTransitionsOptions,
  BudgetOptions,
  CompactionOptions,
  MiddleLimits,
  ModelLimits,
  NarrowestLimits,
  RetryBackoffOptions,
  WaterfallOptions,
} from './compaction'
export { MODEL_LIMITS, modelLimits } from './compaction'
export type {
  CitationInput,
  ContentAccess,
  ContentOptions,
  ContentPlugin,
  ContentSnapshot,
  ContentToolOptions,
  GenericPluginOptions,
  MemoryHitLocation,
  MemoryQueryHit,
  MemoryQueryInput,
  MemoryQueryOutput,
  MemoryRetrieveInput,
  MemoryRetrieveOutput,
  MemoryStoreInput,
  MemoryStoreOutput,
  MemoryTool,
  MemoryToolError,
  MemoryToolName,
  MemoryTools,
  RetrieveTransform,
  ThreadContentOptions,
  ThreadOptions,
  ThreadWithContent,
  WebPagePluginOptions,
} from './content'
export { genericPlugin, memoryTools, RETRIEVE_TRANSFORMS, ThreadContent, webPagePlugin } from './content'
export type { ContextMessage, ContextStats } from './context'
export {
  invalidOptions,
  StrataError,
  type StrataErrorCode,
  type StrataErrorDetails,
  type StrataErrorOptions,
} from './errors'
export type {
  CompactionEndEvent,
  CompactionStartEvent,
  CompactionTrigger,
  ContextEvent,
  MemoryEventListener,
  MemoryEventName,
  MemoryEvents,
  RewindEvent,
  TransitionEvent,
} from './events'
export {
  type ComparableMessage,
  type HistoryMode,
  messageFingerprint,
  readConversationTail,
  type UnseenMessagesOptions,
  type UnseenMessagesResult,
  unseenMessages,
} from './history'
export type {
  FactItem,
  FilePart,
  Item,
  ItemBase,
  ItemType,
  JsonObject,
  JsonValue,
  MessageInput,
  MessageItem,
  MessagePart,
  MessageRole,
  ReasoningPart,
  ScopeOpening,
  SeqRange,
  SummaryItem,
  SummaryTier,
  TextPart,
  ToolCallPart,
  ToolResultPart,
  TransitionItem,
  TransitionReason,
  UnsequencedItem,
} from './items'
export {
  assertSerializable,
  assertThreadId,
  fromModelMessage,
  isTypedToolOutput,
  isValidThreadId,
  jsonCopy,
  MAX_JSON_DEPTH,
  MAX_JSON_SIZE,
  type MessageFormat,
  plainJson,
} from './items'
export { DEFAULT_LEVELS, type DefaultLevel, type LevelLadder } from './levels'
export {
  type AppendFitOptions,
  type AppendMessageOptions,
  type AppendUnseenOptions,
  type ContextOptions,
  createMemory,
  DEFAULT_MODES,
  type Divergence,
  type DivergenceHandling,
  type EnterOptions,
  type ExitOptions,
  type ExitResult,
  type FollowHistoryOptions,
  followHistory,
  type HoldOptions,
  type LastCompaction,
  type Memory,
  type MemoryOptions,
  type OpenScope,
  type RewindOptions,
  type RewindResult,
  type ScopeOutcome,
  Thread,
  type ThreadContext,
  type ThreadHold,
  type ThreadStatus,
  type UsageReport,
} from './memory'
export type { DivergencePoint, RewindRefusal } from './rewind'
export type {
  EnterScopeInput,
  EnterScopeOutput,
  ExitScopeInput,
  ExitScopeOutput,
  ScopeTool,
  ScopeToolName,
  ScopeToolScope,
  ScopeTools,
  ScopeToolsOptions,
  ThreadWithScopes,
} from './scopes'
export { scopeTools } from './scopes'
export type {
  AppendOptions,
  ArchiveOptions,
  ContentQuery,
  ContentRecord,
  InMemoryStoreOptions,
  LeaseGrant,
  LeaseOptions,
  LeaseWriteOptions,
  ReadOptions,
  StoreContentMethods,
  StoreFlags,
  StoreLeaseMethods,
  StoreSpecificationVersion,
  StrataStore,
  StrataStoreBase,
  ThreadHead,
} from './stores'
export { inMemoryStore, STORE_SPECIFICATION_VERSION } from './stores'
export type {
  CompleteInput,
  PatternSummarizerOptions,
  PromptSummarizerOptions,
  SummarizedFact,
  SummarizeOptions,
  SummarizeResult,
  Summarizer,
  SummarizerFailureReason,
  WithTimeoutOptions,
} from './summarizers'
export { patternSummarizer, promptSummarizer, withTimeout } from './summarizers'
export type {
  FrameworkTracer,
  TelemetryAttributes,
  TelemetryAttributeValue,
  TelemetryOptions,
  TelemetrySpan,
  TelemetryTracer,
} from './telemetry'
export { type TokenCounter, type TokenEstimatorOptions, tokenEstimator } from './tokens'
export type { ToolInteraction } from './views'
