import type { JsonObject } from './json'
import type { MessagePart, MessageRole } from './message-part'

/** Fields every item of a thread's log carries. */
export interface ItemBase<L extends string = string> {
  /** Unique within the thread. */
  id: string
  /** Strictly increasing per thread, assigned by the store (1 for the first item). */
  seq: number
  /** Epoch milliseconds. */
  ts: number
  level: L
  /** `turn_0001`, `turn_0002`, …: a user message starts a turn; `turn_0000` precedes the first. */
  turnId: string
  /** Application metadata, kept verbatim. Adapters keep framework ids here. */
  meta?: JsonObject
}

/** Marks the opening item `thread.enter` writes: what the scope is for. */
export interface ScopeOpening {
  title: string
  instructions?: string
  /**
   * Set when an automatic transition closed the scope's earlier part and reopened it: the seq of the
   * opening item it continues.
   */
  continuedFrom?: number
}

/** A chat message. */
export interface MessageItem<L extends string = string> extends ItemBase<L> {
  type: 'message'
  role: MessageRole
  content: MessagePart[]
  /** Present on the opening item of a scope (a user message at the scope's level). */
  scope?: ScopeOpening
  /**
   * Written by core with the item: each part's tokens as the thread's totals count them (an offloaded
   * part as what was appended), by the counter named. A thread opened with a counter of the same name
   * and version trusts them instead of counting the log again; absent or from another counter (or
   * version), the parts are counted.
   */
  tokens?: PartTokens
}

/** Token counts of a message's parts by one counter ({@link MessageItem.tokens}). */
export interface PartTokens {
  /** The identity of the token counter that counted: its `name`, and `@version` when it has one. */
  counter: string
  /** One count per part, in `content` order. */
  parts: number[]
}

/** Why a scope ended. */
export type TransitionReason =
  | 'task-complete'
  | 'project-complete'
  | 'cancelled'
  | 'aborted'
  | 'manual'
  | 'size-limit'
  | 'time-limit'
  | 'token-budget'

/** An inclusive range of seqs. */
export interface SeqRange {
  fromSeq: number
  toSeq: number
}

/** The end of a scope, written at the level it returns to: the enclosing scope's (the broadest when none). */
export interface TransitionItem<L extends string = string> extends ItemBase<L> {
  type: 'transition'
  fromLevel: L
  reason: TransitionReason
  /** What the model sees in place of the closed scope. */
  agentFacingMessage: string
  /** What people see; null: not shown. */
  userFacingMessage: string | null
  /** The seqs the closed scope covered. */
  range: SeqRange
}

export type SummaryTier = 'scope' | 'short-term' | 'long-term' | 'episodic'

/** A summary of earlier items. */
export interface SummaryItem<L extends string = string> extends ItemBase<L> {
  type: 'summary'
  tier: SummaryTier
  text: string
  range: SeqRange
  turnIds?: string[]
  /**
   * Exactly the seqs this summary replaces in the active log, as runs oldest first (budget compaction
   * sets it, then archives them). Until they are archived the thread treats them as archived: a
   * compaction cut short by a store failure is finished by the thread's next write, never summarized
   * twice, never shown beside its summary.
   */
  covers?: SeqRange[]
  /** 0..1: how much the summary matters when space is short. */
  salience: number
  /**
   * On the episodic summary of a budget or manual compaction: what it did, so a chat can show the
   * compaction at its place after a reload (the `compaction-end` event carries the same figures).
   */
  compaction?: SummaryCompaction
}

/** What a budget or manual compaction did, kept on the episodic summary it wrote. */
export interface SummaryCompaction {
  trigger: 'budget' | 'manual'
  /** Tokens of the active log's messages before and after it. */
  tokensBefore: number
  tokensAfter: number
  /** Items it moved to the archive. */
  itemsArchived: number
}

/** A semantic fact extracted from the conversation. */
export interface FactItem<L extends string = string> extends ItemBase<L> {
  type: 'fact'
  text: string
  tags: string[]
  /** 0..1 */
  confidence: number
  /** 0..1 */
  salience: number
}

export type Item<L extends string = string> =
  | MessageItem<L>
  | TransitionItem<L>
  | SummaryItem<L>
  | FactItem<L>
export type ItemType = Item['type']

/** An item before the store assigned its seq. */
export type UnsequencedItem<L extends string = string> =
  Item<L> extends infer I ? (I extends Item<L> ? Omit<I, 'seq'> : never) : never
