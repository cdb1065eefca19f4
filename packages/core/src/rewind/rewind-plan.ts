import { StrataError } from '../errors'
import type { Item } from '../items'

/** Why a rewind was refused (`details.reason` of `STRATA_REWIND_UNSAFE`). */
export type RewindRefusal = 'compacted' | 'scope-changed' | 'tool-call-split'

/** What a rewind after a seq moves to the archive and what it leaves in the active log. */
export interface RewindPlan<L extends string = string> {
  /** The messages after the point, oldest first: they move to the archive. */
  archive: Item<L>[]
  /**
   * Summaries, facts and transitions after the point that cover only items at or before it (a
   * compaction or a scope closed while a later turn ran): still true, so they stay active.
   */
  keep: Item<L>[]
}

function refuse(
  threadId: string,
  afterSeq: number,
  reason: RewindRefusal,
  why: string,
  what: string,
  details: Record<string, unknown>,
): never {
  throw new StrataError({
    code: 'STRATA_REWIND_UNSAFE',
    message: `Cannot rewind thread '${threadId}' after seq ${afterSeq}: ${why} Nothing was archived. ${what}`,
    details: { threadId, afterSeq, reason, ...details },
  })
}

/**
 * Plans a rewind of the active items after `afterSeq` (`after`: those items, oldest first). Messages
 * move to the archive. Items that only describe what lies at or before the point stay. Throws
 * `STRATA_REWIND_UNSAFE` when the rewind would leave the thread inconsistent:
 * - `compacted`: a summary covers items after the point (their detail may live only in the summary);
 * - `scope-changed`: a scope was opened or closed after the point (the level would lose its cause);
 * - `tool-call-split`: a tool result after the point answers a call at or before it.
 *
 * @example
 * const { archive } = planRewind(items.filter((item) => item.seq > 12), 12, 'chat-7')
 */
export function planRewind<L extends string>(
  after: readonly Item<L>[],
  afterSeq: number,
  threadId: string,
): RewindPlan<L> {
  const archive: Item<L>[] = []
  const keep: Item<L>[] = []
  const calls = new Set<string>()
  for (const item of after) {
    switch (item.type) {
      case 'message': {
        if (item.scope !== undefined) {
          refuse(
            threadId,
            afterSeq,
            'scope-changed',
            `the ${item.level} scope "${item.scope.title}" was opened after that point (seq ${item.seq}), so the thread's level would lose its cause.`,
            `Rewind to a point at or after seq ${item.seq}, or go on in a new thread.`,
            { seq: item.seq },
          )
        }
        for (const part of item.content) if (part.type === 'tool-call') calls.add(part.toolCallId)
        for (const part of item.content) {
          if (part.type !== 'tool-result' || calls.has(part.toolCallId)) continue
          refuse(
            threadId,
            afterSeq,
            'tool-call-split',
            `the result of tool call '${part.toolCallId}' (seq ${item.seq}) comes after that point and its call does not; a call and its result are one unit.`,
            'Rewind to a point before the call, or after the result.',
            { seq: item.seq, toolCallId: part.toolCallId },
          )
        }
        archive.push(item)
        break
      }
      case 'transition':
      case 'summary': {
        if (item.range.toSeq <= afterSeq) {
          keep.push(item)
          break
        }
        if (item.type === 'transition' || item.tier === 'scope') {
          refuse(
            threadId,
            afterSeq,
            'scope-changed',
            `a ${item.level} scope was closed after that point (seq ${item.seq}), covering seqs ${item.range.fromSeq}–${item.range.toSeq}, so the thread's level would lose its cause.`,
            `Rewind to a point at or after seq ${item.seq}, or go on in a new thread.`,
            { seq: item.seq, range: { ...item.range } },
          )
        }
        refuse(
          threadId,
          afterSeq,
          'compacted',
          `the ${item.tier} summary at seq ${item.seq} covers seqs ${item.range.fromSeq}–${item.range.toSeq}, so items after that point are already compacted into it.`,
          `Rewind to a point at or after seq ${item.range.toSeq}, or go on in a new thread.`,
          { seq: item.seq, range: { ...item.range } },
        )
        break
      }
      case 'fact':
        // Facts come with the episodic summary written beside them: they stand or fall with it.
        keep.push(item)
        break
    }
  }
  return { archive, keep }
}
