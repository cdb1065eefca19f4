export type { OpenScope } from '../thread-state/thread-log'
export { openAppThread, readAppThreadId } from './app-thread'
export { createMemory, DEFAULT_MODES, type Memory, type MemoryOptions } from './create-memory'
export { type DivergenceHandling, type FollowHistoryOptions, followHistory } from './follow-history'
export { failureCode, markRequestFailed } from './mark-request-failed'
export {
  type AppendFitOptions,
  type AppendMessageOptions,
  type AppendUnseenOptions,
  type ContextOptions,
  type Divergence,
  type DivergenceOptions,
  type EnterOptions,
  type ExitOptions,
  type ExitResult,
  type HoldOptions,
  type LastCompaction,
  type MarkFailedOptions,
  type RequestFailure,
  type RewindOptions,
  type RewindResult,
  type ScopeOutcome,
  Thread,
  type ThreadContext,
  type ThreadHold,
  type ThreadStatus,
  type Transcript,
  type TranscriptOptions,
  type UnseenOptions,
  type UsageReport,
} from './thread'
