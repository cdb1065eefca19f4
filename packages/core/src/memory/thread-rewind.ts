import type { CompactionPolicies } from '../compaction/compaction-policies'
import { invalidOptions, StrataError } from '../errors'
import { isConversation } from '../history/message-matching'
import { checkMatchingOptions, DEFAULT_WINDOW } from '../history/unseen-messages'
import type { JsonObject } from '../items'
import { divergencePoint, MAX_DIVERGENCE_DEPTH } from '../rewind/divergence-point'
import { planRewind } from '../rewind/rewind-plan'
import { isConversationEntry } from '../thread-state/sealed-items'
import type { ThreadState } from '../thread-state/thread-state'
import type { WritePath } from '../thread-state/write-path'
import type { MessageAppend } from './message-append'
import { REWOUND_STATE_KEY, rewoundRanges } from './thread-transcript'
import type { Divergence, DivergenceOptions, RewindOptions, RewindResult } from './thread-types'

/** What `divergence` and `rewind` need from their thread. */
export interface ThreadRewindParts<L extends string> {
  state: ThreadState<L>
  writes: WritePath<L>
  append: MessageAppend<L>
  policies: CompactionPolicies<L>
}

/** Where an incoming history leaves the thread (see `Thread.divergence`). */
export async function threadDivergence<L extends string, T extends { role: string }>(
  { state, writes, append }: ThreadRewindParts<L>,
  incoming: readonly T[],
  options: DivergenceOptions<T>,
): Promise<Divergence | undefined> {
  if (!Array.isArray(incoming)) invalidOptions('divergence() needs an array of messages.')
  const { toMessage, history = 'auto', window = DEFAULT_WINDOW, partial = false } = options
  if (typeof partial !== 'boolean')
    invalidOptions(`divergence(): partial must be true or false (got ${JSON.stringify(partial)}).`, {
      partial,
    })
  checkMatchingOptions({ history, window })
  const messages = append.incomingConversation(incoming, toMessage)
  return writes.exclusive(async () => {
    await writes.refresh()
    // The search reads at most `window` conversation messages before its deepest cut: that tail is
    // whole (read back if an open sealed part of it); nothing older is reached.
    const depth = window + MAX_DIVERGENCE_DEPTH
    await state.log.unsealTail(depth, isConversationEntry)
    const point = divergencePoint(
      state.log.tailFrozen(depth, isConversation),
      messages,
      history,
      window,
      partial,
    )
    return point === undefined ? undefined : { ...point, lastSeq: state.log.lastSeq }
  })
}

/** Archives every message after `afterSeq` with the seq check (see `Thread.rewind`). */
export async function rewindThread<L extends string>(
  { state, writes, policies }: ThreadRewindParts<L>,
  options: RewindOptions,
): Promise<RewindResult<L>> {
  const seqOption = (name: string, value: unknown) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      invalidOptions(
        `rewind(): ${name} must be a whole number of at least 0 (got ${JSON.stringify(value)}).`,
        {
          [name]: value,
        },
      )
    }
  }
  if (typeof options !== 'object' || options === null)
    invalidOptions('rewind() needs { afterSeq }, e.g. rewind({ afterSeq: 12 }).')
  seqOption('afterSeq', options.afterSeq)
  if (options.expectedLastSeq !== undefined) seqOption('expectedLastSeq', options.expectedLastSeq)
  const { afterSeq, expectedLastSeq } = options
  const { id } = state
  // A compaction summary of items the rewind archives must not land after it.
  await policies.beforeRewind()
  const result = await writes.exclusive(async () => {
    await writes.refresh()
    const lastSeq = state.log.lastSeq
    if (expectedLastSeq !== undefined && expectedLastSeq !== lastSeq) {
      throw new StrataError({
        code: 'STRATA_SEQ_CONFLICT',
        message: `Thread '${id}' changed since seq ${expectedLastSeq} (its last seq is now ${lastSeq}: another writer appended), so it was not rewound and nothing was archived. Read it again and decide anew.`,
        details: { threadId: id, expectedSeq: expectedLastSeq, actualSeq: lastSeq },
      })
    }
    if (afterSeq > lastSeq) {
      invalidOptions(
        `rewind(): afterSeq ${afterSeq} is past the end of thread '${id}' (its last seq is ${lastSeq}).`,
        { afterSeq, lastSeq },
      )
    }
    await state.log.unsealAfter(afterSeq)
    const plan = planRewind(state.log.itemsAfter(afterSeq), afterSeq, id)
    if (plan.archive.length === 0) return { afterSeq, archived: [], kept: plan.keep }
    const seqs = plan.archive.map((item) => item.seq)
    // Recorded before the archive, so what a rewind archived is never read back as a compacted turn
    // (\`thread.transcript\`); a mark whose archive then fails names items that stay active: harmless.
    const stored = await state.deps.store.getState(id)
    await state.deps.store.setState(id, {
      ...stored,
      [REWOUND_STATE_KEY]: [
        ...rewoundRanges(stored),
        { fromSeq: seqs[0]!, toSeq: seqs.at(-1)! },
      ] as unknown as JsonObject[],
    })
    try {
      await state.deps.store.archive(id, { seqs, expectedSeq: lastSeq })
    } catch (error) {
      if (!StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT')) throw error
      throw new StrataError({
        code: 'STRATA_SEQ_CONFLICT',
        message: `Another writer appended to thread '${id}' while it was being rewound after seq ${afterSeq}, so nothing was archived. Read it again and decide anew.`,
        cause: error,
        details: { threadId: id, afterSeq, expectedSeq: lastSeq },
      })
    }
    state.log.removeArchived(new Set(seqs))
    return { afterSeq, archived: plan.archive, kept: plan.keep }
  })
  if (result.archived.length > 0) {
    state.deps.events.emit('rewind', { threadId: id, afterSeq, archived: result.archived })
  }
  return result
}
