import { invalidOptions, StrataError } from '../errors'
import type { JsonObject, UnsequencedItem } from '../items'
import type {
  AppendOptions,
  ArchiveOptions,
  ContentRecord,
  LeaseWriteOptions,
  StoreLeaseMethods,
  StrataStore,
} from '../stores'
import { checkTtlMs, threadBusyError } from '../stores/lease-arguments'
import { hasLeaseMethods, leaseMethods } from '../stores/store-check'
import { storeWithOverrides } from '../stores/store-overrides'

/** Options of `thread.hold()`. */
export interface HoldOptions {
  /**
   * How long the hold outlives its holder: the lease lapses this long after its last renewal, which
   * happens every `ttlMs / 3` while the hold is held, so a process that dies frees the thread after
   * at most this long. A whole number of milliseconds.
   * @default 30_000
   */
  ttlMs?: number
}

/**
 * A request's hold on a thread, from `thread.hold()`: until it is released, no other request (through
 * another memory object, or another process) may hold or write the thread. Release it when the request
 * ends, also when it fails: `await using hold = await thread.hold()` does that.
 */
export interface ThreadHold {
  readonly threadId: string
  /**
   * Ends the hold; idempotent, and never rejects (a lease the store could not take back lapses after
   * its ttl). Also `[Symbol.asyncDispose]`.
   */
  release(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/** The default {@link HoldOptions.ttlMs}. */
const DEFAULT_HOLD_TTL_MS = 30_000

/** `Symbol.asyncDispose` where the runtime has it; the registered symbol `using` falls back to elsewhere. */
const asyncDispose: typeof Symbol.asyncDispose =
  (Symbol as { asyncDispose?: typeof Symbol.asyncDispose }).asyncDispose ??
  (Symbol.for('Symbol.asyncDispose') as typeof Symbol.asyncDispose)

/** A set of holds released together (the memory's, on `memory.close()`). */
export type HoldRegistry = Set<{ release(): Promise<void> }>

/** What a thread's holds need from the thread. */
export interface ThreadHoldsOptions {
  threadId: string
  /** The memory's store at the time of the call (it is wrapped in spans once an adapter traces). */
  store: () => StrataStore
  /** Catches the thread object up with writes of other holders, once the hold is granted. */
  refresh: () => Promise<void>
  /** The memory's live holds, for `memory.close()`. */
  registry?: HoldRegistry
}

/** One hold, from the call that asks for it until it is released. */
class ActiveHold implements ThreadHold {
  readonly threadId: string
  readonly owner = crypto.randomUUID()
  /** Set once the store granted the lease, which then has to be given back. */
  granted = false
  /** When the lease lapses unless renewed (epoch ms), as the store last said. */
  expiresAt: number | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  #released: Promise<void> | undefined
  readonly #end: (hold: ActiveHold) => Promise<void>

  constructor(threadId: string, end: (hold: ActiveHold) => Promise<void>) {
    this.threadId = threadId
    this.#end = end
  }

  get released(): boolean {
    return this.#released !== undefined
  }

  /** Runs `renew` after `delayMs`, without keeping a process alive for it. */
  schedule(delayMs: number, renew: () => void): void {
    this.#timer = setTimeout(renew, delayMs)
    ;(this.#timer as { unref?: () => void }).unref?.()
  }

  stopRenewing(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
  }

  release(): Promise<void> {
    this.#released ??= this.#end(this)
    return this.#released
  }

  [asyncDispose](): Promise<void> {
    return this.release()
  }
}

/**
 * A thread object's hold: at most one at a time per thread object (a second `hold()` is refused at
 * once), backed by the store's lease so that other memory objects and other processes are refused
 * too. While it is held, every write the thread object makes carries the lease's owner token (see
 * {@link ThreadHolds.store}), so the store lets the holder's writes through and refuses everyone else's.
 */
export class ThreadHolds {
  readonly #options: ThreadHoldsOptions
  #current: ActiveHold | undefined
  /** The store the stamped view was made for, and the view. */
  #stamped: { base: StrataStore; view: StrataStore } | undefined

  constructor(options: ThreadHoldsOptions) {
    this.#options = options
  }

  /**
   * The owner token writes carry: the current hold's, from the moment it is asked for (a write of this
   * thread object that races the store's grant then passes as the holder's, not as another owner's).
   */
  get lease(): string | undefined {
    return this.#current?.owner
  }

  /** Takes the hold; see `Thread.hold`. */
  async hold(options: HoldOptions = {}): Promise<ThreadHold> {
    const { threadId } = this.#options
    const ttlMs = checkTtl(options)
    const store = leaseMethods(this.#options.store(), 'thread.hold()')
    if (this.#current !== undefined) throw threadBusyError(threadId, this.#current.expiresAt)
    // Taken before the first await, so a second hold() on this thread object is refused at once.
    const hold = new ActiveHold(threadId, (ended) => this.#end(ended, store))
    this.#current = hold
    try {
      const grant = await store.acquireLease(threadId, { owner: hold.owner, ttlMs })
      hold.granted = true
      hold.expiresAt = grant.expiresAt
      this.#options.registry?.add(hold)
      this.#renewLater(hold, store, ttlMs)
      await this.#options.refresh()
    } catch (error) {
      // Refused or failed: nothing of the thread changed; the lease, if granted, is given back.
      await hold.release()
      throw error
    }
    return hold
  }

  /**
   * The store as this thread object writes to it: `append`, `archive`, `setState` and `setSlot` of this thread
   * carry the hold's owner token while a hold is granted, so that the store tells the holder's writes
   * from others'. Without a hold, a content record for this thread is not written while another owner
   * holds the thread (the append that would cite it is refused anyway). Everything else is the store's.
   */
  store(): StrataStore {
    const base = this.#options.store()
    if (this.#stamped?.base !== base) this.#stamped = { base, view: this.#stampedView(base) }
    return this.#stamped.view
  }

  #stampedView(base: StrataStore): StrataStore {
    if (!hasLeaseMethods(base)) return base
    const { threadId } = this.#options
    const withLease = <O extends LeaseWriteOptions>(id: string, options: O): O => {
      const lease = id === threadId ? this.lease : undefined
      return lease === undefined ? options : { ...options, lease }
    }
    const overrides: Partial<StrataStore> = {
      append: (id: string, items: readonly UnsequencedItem[], options: AppendOptions) =>
        base.append(id, items, withLease(id, options)),
      archive: (id: string, options: ArchiveOptions) => base.archive(id, withLease(id, options)),
      setState: (id: string, state: JsonObject, options?: LeaseWriteOptions) =>
        base.setState(id, state, withLease(id, options ?? {})),
    }
    // Only where the store has them: a view must not make a store look as if it had slots or content.
    const { setSlot } = base
    if (typeof setSlot === 'function') {
      overrides.setSlot = (
        id: string,
        name: string,
        value: JsonObject | undefined,
        options?: LeaseWriteOptions,
      ) => setSlot.call(base, id, name, value, withLease(id, options ?? {}))
    }
    if (typeof base.putContent === 'function') {
      overrides.putContent = async (id: string, record: ContentRecord) => {
        if (id === threadId && this.lease === undefined) {
          const held = await (base as unknown as StoreLeaseMethods).readLease(id)
          if (held !== undefined) throw threadBusyError(id, held.expiresAt)
        }
        return base.putContent(id, record)
      }
    }
    return storeWithOverrides(base, new Map(Object.entries(overrides)))
  }

  #renewLater(hold: ActiveHold, store: StoreLeaseMethods, ttlMs: number): void {
    hold.schedule(Math.max(1, Math.floor(ttlMs / 3)), () => {
      void this.#renew(hold, store, ttlMs)
    })
  }

  /**
   * Extends the lease; when it lapsed (the process stalled longer than the ttl) and nobody took it,
   * takes it again. When another owner took it meanwhile, the hold is lost: it stops renewing, and the
   * store refuses its writes, which still carry the old token.
   */
  async #renew(hold: ActiveHold, store: StoreLeaseMethods, ttlMs: number): Promise<void> {
    if (hold.released) return
    const { threadId } = this.#options
    try {
      let grant = await store.renewLease(threadId, { owner: hold.owner, ttlMs })
      if (grant === undefined) {
        // Lapsed: taken again, unless the hold was released meanwhile (nobody would give it back).
        if (hold.released) return
        grant = await store.acquireLease(threadId, { owner: hold.owner, ttlMs })
        if (hold.released) {
          await store.releaseLease(threadId, { owner: hold.owner })
          return
        }
      }
      hold.expiresAt = grant.expiresAt
    } catch (error) {
      if (StrataError.isInstance(error, 'STRATA_THREAD_BUSY')) return
      // A store failure: tried again at the next tick, which still comes before the lease lapses.
    }
    if (!hold.released) this.#renewLater(hold, store, ttlMs)
  }

  /**
   * Gives the lease back. Writes keep carrying the token until the store has ended the lease (else
   * the thread's own lease would refuse them), and a second hold on this thread object is refused
   * until then.
   */
  async #end(hold: ActiveHold, store: StoreLeaseMethods): Promise<void> {
    hold.stopRenewing()
    try {
      // A store that fails to take the lease back leaves it to lapse: release never throws, so the
      // `finally` of a request (often a fire-and-forget one) cannot fail on it.
      if (hold.granted) await store.releaseLease(this.#options.threadId, { owner: hold.owner })
    } catch {
    } finally {
      this.#options.registry?.delete(hold)
      if (this.#current === hold) this.#current = undefined
    }
  }
}

function checkTtl(options: HoldOptions): number {
  if (typeof options !== 'object' || options === null) {
    invalidOptions('thread.hold(options): options must be an object like { ttlMs }.', {})
  }
  return checkTtlMs(options.ttlMs ?? DEFAULT_HOLD_TTL_MS, 'thread.hold()')
}
