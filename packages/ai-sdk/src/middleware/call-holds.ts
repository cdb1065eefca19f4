import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Message,
} from '@ai-sdk/provider'
import { type Memory, StrataError, type Thread, type ThreadHold } from '@strata-memory/core'

/** How far from the end of a prompt the results of the previous step's tool calls are looked for. */
const RESULTS_WINDOW = 64

/** A request between two steps: its hold, kept for the step that sends the results of its tool calls. */
interface OpenRequest {
  hold: ThreadHold
  /** The tool calls the last step made, which the SDK runs and sends back in the next step. */
  pending: ReadonlySet<string>
  timer: ReturnType<typeof setTimeout>
}

/**
 * The requests between two steps, per memory and thread: shared by every middleware on a memory, so a
 * step of the same request through a middleware created anew still finds its hold.
 */
const openRequests = new WeakMap<Memory<string>, Map<string, OpenRequest>>()

/** The ids of the tool calls a response leaves to the SDK to run (not the provider's own). */
export function clientToolCalls(content: readonly LanguageModelV4Content[]): string[] {
  return content.flatMap((part) =>
    part.type === 'tool-call' && part.providerExecuted !== true ? [part.toolCallId] : [],
  )
}

/** Whether the prompt's last messages send a result of one of these tool calls. */
function answers(conversation: readonly LanguageModelV4Message[], pending: ReadonlySet<string>): boolean {
  for (
    let index = conversation.length - 1;
    index >= Math.max(0, conversation.length - RESULTS_WINDOW);
    index--
  ) {
    const message = conversation[index]!
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type === 'tool-result' && pending.has(part.toolCallId)) return true
    }
  }
  return false
}

/**
 * The holds the middleware takes itself when the app gives it no request hold. A request (one
 * `generateText`/`streamText`, all its steps) holds its thread from its first step: a step that ends
 * with tool calls keeps the hold for the step that sends their results (the SDK runs the tools in
 * between), for at most `waitMs`; a step that ends otherwise, fails or is aborted ends it. A call that
 * sends the results of the held step's tool calls continues that request (also the next request of a
 * conversation that stopped on a tool step: it holds them too); any other call on the thread is
 * another request, refused by `thread.hold()` with `STRATA_THREAD_BUSY` before it stores anything.
 */
export class CallHolds {
  readonly #open: Map<string, OpenRequest>
  readonly #waitMs: number
  /** The hold of each call, by the params `transformParams` returned for it. */
  readonly #calls = new WeakMap<LanguageModelV4CallOptions, { threadId: string; hold: ThreadHold }>()

  constructor(memory: Memory<string>, waitMs: number) {
    let open = openRequests.get(memory)
    if (open === undefined) {
      open = new Map()
      openRequests.set(memory, open)
    }
    this.#open = open
    this.#waitMs = waitMs
  }

  /**
   * The hold of a call: the held request's when the call sends the results of its tool calls, else a
   * new one (`STRATA_THREAD_BUSY` while another request holds the thread); none on a store without the
   * lease capability.
   */
  async take(
    thread: Thread<string>,
    conversation: readonly LanguageModelV4Message[],
  ): Promise<ThreadHold | undefined> {
    const open = this.#open.get(thread.id)
    if (open !== undefined && answers(conversation, open.pending)) {
      clearTimeout(open.timer)
      this.#open.delete(thread.id)
      return open.hold
    }
    try {
      return await thread.hold()
    } catch (error) {
      if (StrataError.isInstance(error, 'STRATA_STORE_CAPABILITY')) return undefined
      throw error
    }
  }

  /** Ties a hold to the params `transformParams` returned, for `end`. */
  bind(params: LanguageModelV4CallOptions, threadId: string, hold: ThreadHold): void {
    this.#calls.set(params, { threadId, hold })
  }

  /**
   * After a call: with the tool calls its stored response left to the SDK, the hold waits for the step
   * that sends their results; without (an answer, a failure, an abort), it ends.
   */
  async end(params: LanguageModelV4CallOptions, toolCalls: readonly string[] = []): Promise<void> {
    const call = this.#calls.get(params)
    this.#calls.delete(params)
    if (call === undefined) return
    if (toolCalls.length === 0) {
      await release(call.hold)
      return
    }
    const timer = setTimeout(() => {
      if (this.#open.get(call.threadId)?.hold !== call.hold) return
      this.#open.delete(call.threadId)
      void release(call.hold)
    }, this.#waitMs)
    // A request the SDK stopped after a tool step must not keep the process alive.
    ;(timer as { unref?: () => void }).unref?.()
    this.#open.set(call.threadId, { hold: call.hold, pending: new Set(toolCalls), timer })
  }
}

/** Ends a hold, when there is one (`release()` never rejects). */
export const release = (hold: ThreadHold | undefined): Promise<void> => hold?.release() ?? Promise.resolve()
