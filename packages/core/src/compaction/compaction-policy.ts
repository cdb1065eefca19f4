import type { Item, NormalizedMessage, UnsequencedItem } from '../items'
import type { ScopeClosing } from '../thread-state/scope-closing'
import type { WritePath } from '../thread-state/write-path'
import type { CompactionReport } from './compaction-report'
import type { PolicyState } from './policy-state'

export type { PolicyState } from './policy-state'

/** What a policy runs on, handed to it once per thread object. */
export interface PolicyParts<L extends string, C extends object = object> {
  state: PolicyState<L, C>
  /** The thread's write path: its exclusive section, its writes and its refresh. */
  writes: WritePath<L>
  /** How compactions end: the `compaction-end` event, the last compaction and the retry back-off. */
  report: CompactionReport<L>
  /** Closing and reopening scopes (the automatic transitions write through it). */
  closing: ScopeClosing<L>
  /** The usage report stored with the thread when it was opened (`lastUsage`), if any. */
  lastUsage: unknown
}

/** Items a policy stores ahead of an append's messages, in the same write. */
export interface PolicyItems<L extends string> {
  items: UnsequencedItem<L>[]
  /** Told the items as stored (with their seqs), once the write is done. */
  afterStored?(stored: readonly Item<L>[]): void
}

/** A usage report as the policies see it. */
export interface PolicyUsage {
  /** The provider-reported prompt tokens of the last call. */
  inputTokens: number
  /** The counter's tokens of the context that call was sent (the last `context()`), when known. */
  estimatedTokens?: number | undefined
}

/**
 * One compaction policy of one thread: the moments a thread calls it at, each optional but `enabled`.
 * The thread calls every policy of the registry (`policy-registry.ts`) in order at each moment, and
 * knows none by name; a policy reads its options from `state.deps.compaction`, read anew at each call
 * (a thread's own budget may change them).
 */
export interface CompactionPolicy<L extends string> {
  /** Its name: the key of its options in `createMemory({ compaction })`, e.g. `budget`. */
  readonly name: string
  /** Whether the thread's options turn it on now. */
  enabled(): boolean
  /**
   * Inside an append's write, before its messages are stored (on each attempt): items to store ahead
   * of them, e.g. an automatic transition that closes the current scope.
   */
  beforeAppend?(messages: readonly NormalizedMessage[]): Promise<PolicyItems<L> | undefined>
  /** After an append stored something: may start a compaction in the background. */
  afterWrite?(): void
  /** A provider's usage report (`thread.reportUsage`), inside the thread's exclusive section. */
  onUsage?(usage: PolicyUsage): void
  /** The level view a context is about to show, which the policy may narrow; returns the view to show. */
  beforeContext?(view: Item<L>[], level: L): Item<L>[]
  /** The most tokens a context may hold, or undefined for no limit (the smallest of all policies' holds). */
  inputBudget?(): number | undefined
  /** After a context of the current level was built (not a preview): the tokens sent beside its history. */
  afterContext?(built: { systemTokens: number }): void
  /** `thread.compact()`: runs the policy's compaction by hand (`force`: even when nothing asks for it). */
  compact?(request: { force: boolean }): Promise<void>
  /** Before a rewind archives items: background work that could write after them has ended. */
  beforeRewind?(): Promise<void>
  /** Settles when the policy's background work has ended; never rejects. */
  settled?(): Promise<void>
  /** Fields the policy adds to `status().compaction`. */
  status?(): Record<string, unknown>
  /** The whole turns before the current one a snapshot shows, when the policy sets them. */
  rawTailTurns?(): number | undefined
}

/** How a policy is made for each thread: what the registry lists. */
export interface PolicyDefinition<C extends object = object> {
  /** The key of its options in `createMemory({ compaction })`. */
  readonly name: string
  create<L extends string>(parts: PolicyParts<L, C>): CompactionPolicy<L>
}
