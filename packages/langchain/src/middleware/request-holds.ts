import { StrataError, type Thread, type ThreadHold } from '@strata-memory/core'
import { quotedThreadId } from '@strata-memory/core/adapter-kit'

/** Options of {@link RequestHolds}. */
interface RequestHoldsOptions {
  /** The holds' lease time (see `thread.hold({ ttlMs })`); undefined: core's default. */
  ttlMs: number | undefined
  /** How long a request keeps its thread while none of its steps runs in this middleware. */
  idleMs: number
}

/** The hold of one thread and the request that holds it. */
interface Held {
  hold: ThreadHold | undefined
  /** The request (its LangGraph run, see `requestOf`) that holds the thread; undefined when unknown. */
  request: object | undefined
  /** How many of the request's model and tool calls are running. */
  active: number
  /** Set while none is: when it fires, the request is taken to have ended. */
  idle: ReturnType<typeof setTimeout> | undefined
}

/**
 * The threads this middleware's requests hold: one request (an `invoke` or `stream` of the agent, all
 * its steps) at a time per thread. A request takes its thread in `beforeAgent`, before anything is
 * stored, and gives it back in `afterAgent` or when one of its model or tool calls fails.
 *
 * A request can also end where no hook of this middleware sees it: a human-in-the-loop interrupt
 * (after a model answer with tool calls), a recursion limit, another middleware's error. So while
 * none of its model or tool calls runs, its hold lasts `idleMs`; a step that comes later takes it
 * again: the request's own next step, or the request resumed after an interrupt, which starts past
 * `beforeAgent`.
 */
export class RequestHolds {
  readonly #options: RequestHoldsOptions
  readonly #threads = new Map<string, Held>()
  /** Releases under way, by thread: a step taking the thread again waits for its release first. */
  readonly #releasing = new Map<string, Promise<void>>()

  constructor(options: RequestHoldsOptions) {
    this.#options = options
  }

  /**
   * A new request takes the thread, or is refused with `STRATA_THREAD_BUSY` (nothing stored) when
   * another request holds it, here or in another process (the store's lease).
   */
  async begin(thread: Thread, request: object | undefined): Promise<void> {
    const held = this.#threads.get(thread.id)
    if (held !== undefined && (request === undefined || held.request !== request)) throw busy(thread.id)
    if (held === undefined) await this.#take(thread, request)
    this.#idle(thread.id)
  }

  /**
   * A model or tool call of the request starts: the request holds the thread. Its own hold goes on; an
   * idle hold is taken over (the request resumed after an interrupt); a free thread is taken. Refused
   * with `STRATA_THREAD_BUSY` when another request holds it and one of its calls is running.
   */
  async enter(thread: Thread, request: object | undefined): Promise<void> {
    let held = this.#threads.get(thread.id)
    if (held === undefined) {
      await this.#take(thread, request)
      held = this.#threads.get(thread.id)!
    } else if (request !== undefined && held.request !== request) {
      if (held.active > 0) throw busy(thread.id)
      held.request = request
    }
    clearTimeout(held.idle)
    held.idle = undefined
    held.active++
  }

  /** A model or tool call of the request ended (also when it failed). */
  leave(threadId: string, request: object | undefined): void {
    const held = this.#owned(threadId, request)
    if (held === undefined) return
    held.active = Math.max(0, held.active - 1)
    if (held.active === 0) this.#idle(threadId)
  }

  /** The request ended (its last step, or it failed): the thread is free. */
  async end(threadId: string, request: object | undefined): Promise<void> {
    const held = this.#owned(threadId, request)
    if (held !== undefined) await this.#release(threadId, held)
  }

  #owned(threadId: string, request: object | undefined): Held | undefined {
    const held = this.#threads.get(threadId)
    return held === undefined || (request !== undefined && held.request !== request) ? undefined : held
  }

  #idle(threadId: string): void {
    const held = this.#threads.get(threadId)
    if (held === undefined) return
    clearTimeout(held.idle)
    held.idle = setTimeout(() => void this.#release(threadId, held), this.#options.idleMs)
    // A pending idle timer does not keep a process (a script, a test runner) alive.
    ;(held.idle as { unref?: () => void }).unref?.()
  }

  async #take(thread: Thread, request: object | undefined): Promise<void> {
    // Marked before the first await, so that a second request of this middleware is refused at once.
    const held: Held = { hold: undefined, request, active: 0, idle: undefined }
    this.#threads.set(thread.id, held)
    try {
      // A step of a request LangChain ended meanwhile (its `afterAgent` ran beside a structured-output
      // retry) takes the thread once that request's release is done, not refused by its lease.
      await this.#releasing.get(thread.id)
      held.hold = await thread.hold(this.#options.ttlMs === undefined ? {} : { ttlMs: this.#options.ttlMs })
    } catch (error) {
      // A store of contract v1 has no lease: requests go on as they did before, one at a time here.
      if (StrataError.isInstance(error, 'STRATA_STORE_CAPABILITY')) return
      if (this.#threads.get(thread.id) === held) this.#threads.delete(thread.id)
      throw error
    }
  }

  async #release(threadId: string, held: Held): Promise<void> {
    clearTimeout(held.idle)
    held.idle = undefined
    if (this.#threads.get(threadId) === held) this.#threads.delete(threadId)
    const releasing = held.hold?.release()
    const settled = Promise.resolve(releasing).then(
      () => undefined,
      () => undefined,
    )
    this.#releasing.set(threadId, settled)
    try {
      await releasing
    } finally {
      if (this.#releasing.get(threadId) === settled) this.#releasing.delete(threadId)
    }
  }
}

/** The refusal of a request whose thread another request of this middleware holds. */
function busy(threadId: string): StrataError {
  return new StrataError({
    code: 'STRATA_THREAD_BUSY',
    message: `Thread ${quotedThreadId(threadId)} is held by another request of this agent; nothing was stored. Wait for it to end and retry (an HTTP route answers 409), or use another thread.`,
    details: { threadId },
  })
}
