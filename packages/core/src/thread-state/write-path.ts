import { StrataError } from '../errors'
import type { Item, JsonObject, UnsequencedItem } from '../items'
import { isPlainObject } from '../stores/store-arguments'
import { hasSlotMethods } from '../stores/store-check'
import { DIGEST_SLOT, DIGEST_STATE_KEY, storedDigest } from './log-digest'
import { sealOptionsFor } from './sealed-items'
import { type ThreadLog, withPartTokens } from './thread-log'
import { loadThreadLog } from './thread-open'
import type { ThreadState } from './thread-state'

/** How many times a write re-reads the log and tries again after another writer got there first. */
export const MAX_WRITE_ATTEMPTS = 10

/**
 * Waits a random few milliseconds, longer with each attempt, so writers that keep colliding on one
 * thread fall out of step instead of colliding again.
 */
const backOff = (attempt: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)))

/** The queue goes on after a failed operation: its caller gets the failure. */
const ignore = () => undefined

/** `STRATA_THREAD_LOST`: the store holds less of the thread than this thread object saw. */
export function threadLostError(threadId: string, knownSeq: number, storeSeq: number): StrataError {
  return new StrataError({
    code: 'STRATA_THREAD_LOST',
    message:
      `Thread '${threadId}' lost history: this process saw it up to seq ${knownSeq}, the store now ends at seq ${storeSeq}. ` +
      'The store lost data (a Redis restarted without persistence, files removed) or the thread was deleted. ' +
      'Nothing was written. Restore the store from a backup, or delete the thread (memory.deleteThread) and open it again to start over.',
    details: { threadId, knownSeq, storeSeq },
  })
}

/**
 * The thread's write path: operations on one thread object run one at a time (`exclusive`); writes
 * carry the store's seq check and, when another writer got there first, read its items and build again.
 */
export class WritePath<L extends string> {
  readonly #state: ThreadState<L>
  #queue: Promise<unknown> = Promise.resolve()
  /** The digest store queued after an archive, while it runs. */
  #digest: Promise<void> | undefined
  /** The active log where the content channel looks up a result's call (the current log's, sealed ones read back). */
  readonly #history = {
    entries: () => this.#state.log.entries,
    read: (seq: number) => this.#state.log.sealedItem(seq),
  }
  /** Set once the stored state is known to hold no digest, on a store with slots (where it has none). */
  #stateDigestGone = false

  constructor(state: ThreadState<L>) {
    this.#state = state
    this.#watch(state.log)
  }

  /**
   * After items of `log` are archived (a compaction, a rewind, a cut-short archive finished), a new
   * digest is stored in the exclusive section, after the operation that archived them.
   */
  #watch(log: ThreadLog<L>) {
    log.onArchived = () => {
      this.#digest ??= this.exclusive(() => this.storeDigest())
        .catch(() => undefined)
        .finally(() => {
          this.#digest = undefined
        })
    }
  }

  /** Resolves when the digest an archive queued is stored (or given up): `thread.settled()` waits for it. */
  async settled(): Promise<void> {
    await this.#digest
  }

  /** Runs `operation` after every operation queued before it on this thread object. */
  exclusive<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(operation, operation)
    this.#queue = run.catch(ignore)
    return run
  }

  /**
   * Catches up with other writers: new items are read and taken in; when the active log shrank
   * (another process archived items), the log is read again whole. One `head` call when nothing changed.
   */
  async refresh() {
    const state = this.#state
    const { store } = state.deps
    const head = await store.head(state.id)
    if (head.lastSeq === state.log.lastSeq && head.activeCount === state.log.activeCount) return
    // A store's last seq never goes down (archiving keeps it): a lower one is history gone.
    if (head.lastSeq < state.log.lastSeq) throw threadLostError(state.id, state.log.lastSeq, head.lastSeq)
    const fresh =
      head.lastSeq > state.log.lastSeq ? await store.read(state.id, { fromSeq: state.log.lastSeq + 1 }) : []
    if (state.log.activeCount + fresh.length !== head.activeCount) {
      state.log = await loadThreadLog<L>(store, state.id, state.deps.tokenCounter, {
        tracer: state.deps.tracer,
        seal: sealOptionsFor(state.deps),
      })
      this.#watch(state.log)
      return
    }
    for (const item of fresh) state.log.absorb(item as Item<L>)
  }

  /**
   * Builds items from the current derived state and appends them with the seq check; when another
   * writer got there first, reads its items and builds again.
   */
  async write(build: () => UnsequencedItem<L>[] | Promise<UnsequencedItem<L>[]>): Promise<Item<L>[]> {
    const state = this.#state
    await this.finishArchive()
    for (let attempt = 1; ; attempt++) {
      // Large tool results and attachments go to the content store; the log keeps their citations.
      const counter = state.deps.tokenCounter
      const items = (await state.content.offload(await build(), this.#history)).map((item) =>
        withPartTokens(item, counter),
      )
      if (items.length === 0) return []
      try {
        const stored = await state.deps.store.append(state.id, items, { expectedSeq: state.log.lastSeq })
        for (const item of stored) state.log.absorb(item as Item<L>)
        state.afterAppend?.(stored)
        await this.storeDigest()
        return stored as Item<L>[]
      } catch (error) {
        if (!StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT') || attempt >= MAX_WRITE_ATTEMPTS)
          throw error
        if (attempt > 1) await backOff(attempt)
        await this.refresh()
      }
    }
  }

  /**
   * Archives in the store what a compaction cut short left active under its summary (see
   * `SummaryItem.covers`): the thread already treats those items as archived. Archiving seqs already
   * archived changes nothing, so two writers finishing the same compaction agree. Returns how many
   * items the store moved (0 when a long compaction lets them wait).
   */
  async finishArchive(): Promise<number> {
    const state = this.#state
    const waiting = state.log.unfinishedCount
    if (waiting === 0) return 0
    // A long compaction under way archives when the waiting items are at least as many as the active
    // ones (see `ThreadLog.archiveLag`), and all of them at its end; until then nothing is listed.
    // (`activeCount` counts the waiting ones too.)
    if (state.log.archiveLag && waiting < state.log.activeCount - waiting) return 0
    const seqs = state.log.unfinishedArchive
    const archived = await state.deps.store.archive(state.id, { seqs })
    state.log.removeArchived(new Set(seqs))
    return archived
  }

  /**
   * Stores the log's digest when the store holds archived items the stored one does not describe
   * (see `LogDigest`), so the next open reads none of the archive: in its slot on a store with slots,
   * else in the state. A failure leaves the thread as it was: the digest is a shortcut, and an open
   * without it reads the archive above the last one.
   */
  async storeDigest(): Promise<void> {
    const log = this.#state.log
    if (!log.digestDue) return
    log.digestDue = false
    const digest = log.digest()
    const { store } = this.#state.deps
    try {
      if (hasSlotMethods(store)) {
        await store.setSlot(this.#state.id, DIGEST_SLOT, storedDigest(digest))
        // One an older release left in the state goes now (else at the next state write).
        if (!this.#stateDigestGone) await this.updateState({}).catch(() => undefined)
      } else {
        await this.updateState({ [DIGEST_STATE_KEY]: storedDigest(digest) })
      }
    } catch {
      log.digestDue = true
      return
    }
    log.index.adopt(digest.filter, digest.throughSeq)
  }

  /**
   * Merges `patch` into the thread's stored state. On a store with slots, a digest the state still
   * holds (a thread written before slots) leaves it here, moved to the slot when that has none, so
   * the state every later write carries is small; it is written only when something changed.
   */
  async updateState(patch: JsonObject) {
    const { store } = this.#state.deps
    const stored = (await store.getState(this.#state.id)) ?? {}
    const next: JsonObject = { ...stored, ...patch }
    let changed = Object.keys(patch).length > 0
    const slots = hasSlotMethods(store)
    if (slots && DIGEST_STATE_KEY in next && (await this.#moveStateDigest(next[DIGEST_STATE_KEY]))) {
      delete next[DIGEST_STATE_KEY]
      changed = true
    }
    if (changed) await store.setState(this.#state.id, next)
    if (slots) this.#stateDigestGone = !(DIGEST_STATE_KEY in next)
  }

  /**
   * Puts a digest the state holds in the slot, unless the slot holds one already (both are true, see
   * `LogDigest`; opens use the slot's). False, leaving it in the state, when the slot could not be
   * read or written: the next state write tries again.
   */
  async #moveStateDigest(digest: unknown): Promise<boolean> {
    const store = this.#state.deps.store
    if (!hasSlotMethods(store)) return false
    try {
      if (isPlainObject(digest) && (await store.getSlot(this.#state.id, DIGEST_SLOT)) === undefined)
        await store.setSlot(this.#state.id, DIGEST_SLOT, digest as JsonObject)
      return true
    } catch {
      return false
    }
  }
}
