import type { UIMessageChunk } from 'ai'

/** One response of the chat route as it streams: its chunks so far, kept for a page that reloads. */
interface ChatRun {
  chunks: UIMessageChunk[]
  done: boolean
  /** Settles once the request's message is stored (or the run ended): the thread then shows it. */
  stored: Promise<void>
  /** Called on every chunk and at the end: the replays following it. */
  listeners: Set<() => void>
  /** Stops the model (the page's Stop): the run stores what it has and ends. */
  abort: AbortController
}

/** How long a finished run stays replayable: a page that reloaded just before the end still gets it. */
const KEEP_MS = 60_000

const shared = globalThis as typeof globalThis & { strataWebRuns?: Map<string, ChatRun> }

/** The runs of this server process by thread id (kept across hot reloads in development). */
function runs(): Map<string, ChatRun> {
  shared.strataWebRuns ??= new Map()
  return shared.strataWebRuns
}

/**
 * Records a response's chunks while it streams and returns the stream to send. The recording reads
 * the stream to its end whether or not the page is still there, so the run finishes on the server
 * (its answer stored) when the browser reloads or goes away; a page that comes back replays it with
 * {@link replayRun}. One process only: on several server processes the shared runs of
 * shared-runs.ts (the `resumable-stream` package on Redis) hand the response to a page on another.
 */
export function recordRun(
  threadId: string,
  stream: ReadableStream<UIMessageChunk>,
  { stored, abort }: { stored: Promise<void>; abort: AbortController },
): ReadableStream<UIMessageChunk> {
  let ended!: () => void
  const end = new Promise<void>((resolve) => {
    ended = resolve
  })
  const run: ChatRun = {
    chunks: [],
    done: false,
    listeners: new Set(),
    stored: Promise.race([stored, end]),
    abort,
  }
  runs().set(threadId, run)
  const [response, recording] = stream.tee()
  const notify = () => {
    for (const listener of run.listeners) listener()
  }
  void (async () => {
    try {
      for await (const chunk of recording) {
        run.chunks.push(chunk)
        notify()
      }
    } catch {
      // The route's own stream reports its errors as chunks; a cancelled branch ends the recording.
    } finally {
      run.done = true
      ended()
      notify()
      setTimeout(() => {
        if (runs().get(threadId) === run) runs().delete(threadId)
      }, KEEP_MS).unref?.()
    }
  })()
  return response
}

/** Whether a response of this thread is streaming in this process now. */
export function isRunning(threadId: string): boolean {
  const run = runs().get(threadId)
  return run !== undefined && !run.done
}

/**
 * Settles once the running response's message is in the thread (at once without one): a page read
 * before that would show neither the message nor, once replayed, a question for its answer.
 */
export function runStored(threadId: string): Promise<void> {
  const run = runs().get(threadId)
  return run === undefined || run.done ? Promise.resolve() : run.stored
}

/**
 * The thread's latest response from its first chunk, following it live until it ends: what a page
 * that reloaded mid-stream resumes (`useChat({ resume: true })`). Undefined when there is none.
 */
export function replayRun(threadId: string): ReadableStream<UIMessageChunk> | undefined {
  const run = runs().get(threadId)
  if (run === undefined) return undefined
  let next = 0
  let wake: (() => void) | undefined
  const listener = () => wake?.()
  return new ReadableStream<UIMessageChunk>({
    start() {
      run.listeners.add(listener)
    },
    async pull(controller) {
      while (next >= run.chunks.length && !run.done) {
        await new Promise<void>((resolve) => {
          wake = resolve
        })
      }
      if (next < run.chunks.length) {
        controller.enqueue(run.chunks[next++]!)
        return
      }
      run.listeners.delete(listener)
      controller.close()
    },
    cancel() {
      run.listeners.delete(listener)
    },
  })
}

/**
 * Stops the thread's running response (the page's Stop button: closing the page does not stop it).
 * Resolves to whether one was running.
 */
export function stopRun(threadId: string): boolean {
  const run = runs().get(threadId)
  if (run === undefined || run.done) return false
  run.abort.abort()
  return true
}
