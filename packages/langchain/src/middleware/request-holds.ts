import { StrataError, type Thread, type ThreadHold } from '@strata-memory/core'

/** Options of {@link RequestHolds}. */
export interface RequestHoldsOptions {
  /** The holds' lease time (see `thread.hold({ ttlMs })`); undefined: core's default. */
  ttlMs: number | undefined
  /** How long a request that stopped after a model answer with tool calls keeps the thread. */
  pauseMs: number
}

/** The hold of one thread and the request that holds it. */
interface Held {
  hold: ThreadHold | undefined
  /** The request (its LangGraph run, see `requestOf`) that holds the thread; undefined when unknown. */
  request: object | undefined
  /** Set while the request is between a model answer with tool calls and its next step. */
  pause: ReturnType<typeof setTimeout> | undefined
}

/**
 * The threads this middleware's requests hold: one request (an `invoke` or `stream` of the agent, all
 * its steps) at a time per thread. A request takes its thread in `beforeAgent`, before anything is
 * stored, and gives it back in `afterAgent` or when it fails. A request resumed after an interrupt
 * (`humanInTheLoopMiddleware`) starts past `beforeAgent`: its first model or tool call takes the thread.
 *
 * An interrupt ends a request without a hook that a middleware sees. It can only come after a model
 * answer with tool calls, so such an answer pauses the request's hold: if no step of the request
 * follows within `pauseMs`, the thread is given back; a step that follows (the tools running, or the
 * resumed request) takes the paused hold over.
 */
export class RequestHolds {
  readonly #options: RequestHoldsOptions
  readonly #threads = new Map<string, Held>()

  constructor(options: RequestHoldsOptions) {
    this.#options = options
  }

  /**
   * A new request takes the thread, or is refused with `STRATA_THREAD_BUSY` (nothing stored) when
   * another request holds it, here or in another process (the store's lease).
   */
  async begin(thread: Thread, request: object | undefined): Promise<void> {
    const held = this.#threads.get(thread.id)
    if (held !== undefined && request !== undefined && held.request === request) return this.#resume(held)
    if (held !== undefined) throw busy(thread.id)
    await this.#take(thread, request)
  }

  /**
   * Before a model or tool call: the request holds the thread. Its own hold goes on; a paused hold is
   * taken over (the request resumed after an interrupt, or its tools run); a free thread is taken (a
   * resumed request whose pause ran out). `STRATA_THREAD_BUSY` when another running request holds it.
   */
  async ensure(thread: Thread, request: object | undefined): Promise<void> {
    const held = this.#threads.get(thread.id)
    if (held === undefined) return this.#take(thread, request)
    if (request === undefined || held.request === request || held.pause !== undefined) {
      held.request = request
      return this.#resume(held)
    }
    throw busy(thread.id)
  }

  /** After a model answer with tool calls: the request may stop here (an interrupt), see the class. */
  pause(threadId: string, request: object | undefined): void {
    const held = this.#threads.get(threadId)
    if (held === undefined || (request !== undefined && held.request !== request)) return
    clearTimeout(held.pause)
    held.pause = setTimeout(() => void this.#release(threadId, held), this.#options.pauseMs)
    ;(held.pause as { unref?: () => void }).unref?.()
  }

  /** The request ended (its last step, or it failed): the thread is free. */
  async end(threadId: string, request: object | undefined): Promise<void> {
    const held = this.#threads.get(threadId)
    if (held === undefined || (request !== undefined && held.request !== request)) return
    await this.#release(threadId, held)
  }

  async #take(thread: Thread, request: object | undefined): Promise<void> {
    // Marked before the first await, so that a second request of this middleware is refused at once.
    const held: Held = { hold: undefined, request, pause: undefined }
    this.#threads.set(thread.id, held)
    try {
      held.hold = await thread.hold(this.#options.ttlMs === undefined ? {} : { ttlMs: this.#options.ttlMs })
    } catch (error) {
      if (this.#threads.get(thread.id) === held) this.#threads.delete(thread.id)
      // A store of contract v1 has no lease: requests go on without one, as they did before.
      if (StrataError.isInstance(error, 'STRATA_STORE_CAPABILITY')) {
        this.#threads.set(thread.id, held)
        return
      }
      throw error
    }
  }

  #resume(held: Held): void {
    clearTimeout(held.pause)
    held.pause = undefined
  }

  async #release(threadId: string, held: Held): Promise<void> {
    clearTimeout(held.pause)
    held.pause = undefined
    if (this.#threads.get(threadId) === held) this.#threads.delete(threadId)
    await held.hold?.release()
  }
}

/** The refusal of a request whose thread another request of this middleware holds. */
function busy(threadId: string): StrataError {
  return new StrataError({
    code: 'STRATA_THREAD_BUSY',
    message: `Thread '${threadId}' is held by another request of this agent; nothing was stored. Wait for it to end and retry (an HTTP route answers 409), or use another thread.`,
    details: { threadId },
  })
}
