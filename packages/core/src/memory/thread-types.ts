import type { LastCompaction } from '../compaction/compaction-report'
import type { ContextMessage, ContextStats } from '../context'
import type { UnseenMessagesOptions } from '../history'
import type {
  Item,
  JsonObject,
  MessageInput,
  SummaryItem,
  SummaryTier,
  TransitionItem,
  TransitionReason,
} from '../items'
import type { MessageFormat } from '../items/normalize-message'
import type { DivergencePoint } from '../rewind'
import type { OpenScope } from '../thread-state/thread-log'
import type { RequestFailure } from './request-failures'

export type { LastCompaction }

/**
 * The `fit` option of {@link Thread.append} and {@link Thread.appendUnseen}: what the next model call
 * sends besides the thread's context, so that a request that cannot fit the input budget is refused
 * before anything is stored.
 */
export interface AppendFitOptions {
  /** The system prompt the next `context({ system })` is given. */
  system?: string
  /** The text sent alongside the context (`context({ alongside })`): an agent's own prompt, tool definitions. */
  alongside?: string
}

/** Options of {@link Thread.append}. */
export interface AppendMessageOptions {
  /**
   * The messages' shape: `core` (core's messages; a tool output is any JSON) or `ai-sdk` (the AI SDK's
   * `ModelMessage`, mapped by `fromModelMessage`). Without it, a tool output shaped exactly like the
   * AI SDK's typed output (`{ type: 'text', value }`, …) is refused as ambiguous.
   */
  format?: MessageFormat
  /**
   * Under `compaction.budget`: before anything is written, check that the context with these messages
   * can fit the input budget — the system prompt, the text sent alongside and what the fit cannot
   * leave out (the current request and the scopes' opening items, at their smallest) — and otherwise
   * throw `STRATA_BUDGET_EXCEEDED` having stored nothing. Without it, such a request is stored and the
   * next `context()` throws.
   */
  fit?: AppendFitOptions
}

/** Options of {@link Thread.enter}. */
export interface EnterOptions {
  /** What the scope is for; the first thing the narrower view shows. */
  title: string
  /** Longer instructions for the scope (a worker's task description). */
  instructions?: string
  /** Application metadata for the opening item. */
  meta?: JsonObject
}

import type { ScopeOutcome } from '../thread-state/scope-closing'

export type { ScopeOutcome }

/** Options of {@link Thread.exit}. */
export interface ExitOptions<L extends string = string> {
  /** @default 'complete' */
  outcome?: ScopeOutcome
  /** The scope summary; when omitted the memory's summarizer writes it. */
  summary?: string
  /** What people see for this transition; null hides it. @default a sentence naming the scope and outcome */
  userFacingMessage?: string | null
  /** What the model sees in place of the scope. @default `[ACTIONS]: <N task actions filtered for brevity>` */
  agentFacingMessage?: string
  /** The level being closed; when given it must be the innermost open scope's level. */
  level?: L
  /** Why the scope ended. @default `task-complete` (narrowest level) or `project-complete`, `cancelled`, `aborted` */
  reason?: TransitionReason
}

/** What {@link Thread.exit} wrote. */
export interface ExitResult<L extends string = string> {
  transition: TransitionItem<L>
  summary: SummaryItem<L>
}

/** Options of {@link Thread.context}. */
export interface ContextOptions<L extends string = string> {
  /** @default the thread's current level */
  level?: L
  /** The system prompt, placed first. */
  system?: string
  /**
   * Text the caller sends with the context but outside it: an agent's own system prompt, a call's
   * system messages. Not placed in the context; under `compaction.budget` it counts against the input
   * budget (the context is fitted to what is left, and the estimate after each write counts it), and
   * usage reports are compared with the context plus it.
   */
  alongside?: string
}

/**
 * What {@link Thread.context} returns: the context's messages (or what `context`'s `map` made of each)
 * and its stats.
 */
export interface ThreadContext<M = ContextMessage> {
  messages: M[]
  stats: ContextStats
}

/**
 * Options of {@link Thread.unseen}: `unseenMessages`' `history` and `window`, and `appendUnseen`'s
 * `toMessage` in place of `toComparable` (the messages are compared as `appendUnseen` stores them).
 */
export interface UnseenOptions<T> extends Omit<UnseenMessagesOptions<T>, 'toComparable'> {
  /**
   * Maps a framework message to core's message input; only the messages compared with the stored tail
   * (and those `appendUnseen` appends) are mapped.
   * @default the message itself (already core's form)
   */
  toMessage?: (message: T) => MessageInput
}

/** Options of {@link Thread.appendUnseen}. */
export interface AppendUnseenOptions<T> extends UnseenOptions<T> {
  /**
   * Under `compaction.budget`: before anything is written, check that the context with the new
   * messages can fit the input budget (the system prompt, the text sent alongside and the request the
   * fit cannot leave out), and otherwise throw `STRATA_BUDGET_EXCEEDED` having stored nothing: a call
   * refused for its budget leaves the thread exactly as it was.
   *
   * @example
   * await thread.appendUnseen(messages, { fit: { system, alongside: agentPrompt } })
   * const { messages: prompt } = await thread.context({ system, alongside: agentPrompt })
   */
  fit?: AppendFitOptions
}

/** Options of {@link Thread.divergence}. */
export interface DivergenceOptions<T> extends AppendUnseenOptions<T> {
  /**
   * The list holds only the conversation's newest messages, not its start: another middleware put a
   * summary in place of the older ones, or cleared them, and left them out. A point where it leaves
   * the thread is then found where the list runs out: every message before its new ones must match
   * the newest stored messages before that point (one is enough).
   * @default false
   */
  partial?: boolean
}

/** Options of {@link Thread.rewind}. */
export interface RewindOptions {
  /** Every item with a higher seq leaves the active log (0: all of it), but for the kept summaries and facts. */
  afterSeq: number
  /**
   * The thread's last seq when the caller decided to rewind (`divergence().lastSeq`): when another
   * writer appended since, the rewind is `STRATA_SEQ_CONFLICT` and archives nothing.
   * @default the last seq the thread reads just before it archives
   */
  expectedLastSeq?: number
}

/** What {@link Thread.rewind} did. */
export interface RewindResult<L extends string = string> {
  afterSeq: number
  /** The items moved to the archive, oldest first (frozen); they stay readable there. */
  archived: Item<L>[]
  /** Summaries, facts and transitions after the point that stay active: they cover only what precedes it. */
  kept: Item<L>[]
}

/** Where an incoming history leaves the thread, from {@link Thread.divergence}. */
export interface Divergence extends DivergencePoint {
  /** The thread's last seq when it was found: pass it to `rewind` as `expectedLastSeq`. */
  lastSeq: number
}

/** Usage reported by the provider after a model call. */
export interface UsageReport {
  inputTokens: number
  outputTokens?: number
}

/** What {@link Thread.status} returns. */
export interface ThreadStatus<L extends string = string> {
  threadId: string
  level: L
  mode: string | undefined
  scopes: OpenScope<L>[]
  lastSeq: number
  turnId: string
  items: { active: number; archived: number; byLevel: Record<string, number>; byType: Record<string, number> }
  tokens: { total: number; counter: string }
  /** The store the thread lives in: its name and what it promises (`flags`), e.g. for a status page. */
  store: { name: string; persistent: boolean; shared: boolean }
  /** The failed requests that still count, oldest first (`thread.failures()`). */
  failures: RequestFailure[]
  /** The last usage reported with `reportUsage`, and its ratio to Strata's estimate of that context. */
  lastUsage?: { inputTokens: number; outputTokens?: number; estimatedTokens?: number; ts: number }
  /** Summaries by tier with their sizes, facts, the waterfall's progress and the last compaction. */
  compaction: {
    summaries: Record<SummaryTier, { count: number; tokens: number }>
    facts: number
    waterfall: { compactions: number; summarizedThroughSeq: number }
    /** Set while a budget compaction waits for the next context. */
    budgetRequested?: 'early' | 'hard'
    /** Set after summarizer failures: when automatic compaction tries again (epoch ms). */
    retryAt?: number
    last?: LastCompaction
  }
}
