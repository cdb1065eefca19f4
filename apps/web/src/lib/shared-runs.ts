import { createClient } from 'redis'
import { createResumableStreamContext, type Publisher, type Subscriber } from 'resumable-stream/generic'

/**
 * The chat route's responses kept in a stream store every server process reaches, so a page that
 * reloads mid-answer and lands on another process resumes the answer there (the in-process runs of
 * chat-runs.ts cannot be seen from another process).
 */
export interface SharedRuns {
  /** Hands a response's SSE body to the store (`consumeSseStream`): the thread's running response now. */
  record(threadId: string, sse: ReadableStream<string>): Promise<void>
  /** The thread's running response from its first byte, on whatever process runs it; undefined when none. */
  resume(threadId: string): Promise<ReadableStream<string> | undefined>
  /** Whether a response of the thread is streaming on some process. */
  running(threadId: string): Promise<boolean>
  /** Closes the store's connections. */
  close(): Promise<void>
}

/** Options of {@link redisRuns}. */
export interface RedisRunsOptions {
  url: string
  /** The prefix of the keys and channels. @default 'strata-web' */
  prefix?: string
  /** Keeps the process alive until a response is recorded to its end (`after` in Next.js). @default null */
  waitUntil?: ((work: Promise<unknown>) => void) | null
  /** How long a thread's pointer to its running response lasts at most, in seconds. @default 3600 */
  ttlSeconds?: number
}

/**
 * Shared runs on Redis with the `resumable-stream` package (what the AI SDK's resume guide uses): the
 * process running a response publishes it to a page that asks on any process; the thread's running
 * response is named by a key (`<prefix>:chat-run:<threadId>`) that ends with it.
 */
export function redisRuns({
  url,
  prefix = 'strata-web',
  waitUntil = null,
  ttlSeconds = 3600,
}: RedisRunsOptions): SharedRuns {
  const client = createClient({ url })
  const listener = client.duplicate()
  // A dropped connection reconnects; an error event without a listener would end the process.
  client.on('error', () => undefined)
  listener.on('error', () => undefined)
  // Connected on first use (the package does not connect clients it is given).
  let connected: Promise<unknown> | undefined
  const ready = () => {
    connected ??= Promise.all([client.connect(), listener.connect()])
    return connected
  }
  /** A client method that connects first. */
  const withConnection =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await ready()
      return call(...args)
    }
  const publisher: Publisher = {
    connect: ready,
    publish: withConnection((channel: string, message: string) => client.publish(channel, message)),
    set: withConnection((key: string, value: string, options?: { EX?: number }) =>
      options?.EX === undefined
        ? client.set(key, value)
        : client.set(key, value, { expiration: { type: 'EX', value: options.EX } }),
    ),
    get: withConnection((key: string) => client.get(key)),
    incr: withConnection((key: string) => client.incr(key)),
  }
  const subscriber: Subscriber = {
    connect: ready,
    subscribe: withConnection((channel: string, callback: (message: string) => void) =>
      listener.subscribe(channel, callback),
    ),
    unsubscribe: withConnection((channel: string) => listener.unsubscribe(channel)),
  }
  const streams = createResumableStreamContext({
    keyPrefix: `${prefix}:stream`,
    waitUntil,
    publisher,
    subscriber,
  })
  const pointer = (threadId: string) => `${prefix}:chat-run:${threadId}`

  /** The id of the thread's response that is still streaming, if any. */
  const active = async (threadId: string) => {
    await ready()
    const streamId = await client.get(pointer(threadId))
    if (streamId === null) return undefined
    return (await streams.hasExistingStream(streamId)) === true ? streamId : undefined
  }

  return {
    async record(threadId, sse) {
      const streamId = `${threadId}:${crypto.randomUUID()}`
      // Read to its end by the store, whether or not a page reads this copy.
      const recorded = await streams.createNewResumableStream(streamId, () => sse)
      await client.set(pointer(threadId), streamId, { expiration: { type: 'EX', value: ttlSeconds } })
      // Its end clears the pointer, unless a newer response took it.
      void recorded
        ?.pipeTo(new WritableStream())
        .catch(() => undefined)
        .then(async () => {
          if ((await client.get(pointer(threadId))) === streamId) await client.del(pointer(threadId))
        })
        .catch(() => undefined)
    },
    async resume(threadId) {
      const streamId = await active(threadId)
      if (streamId === undefined) return undefined
      return (await streams.resumeExistingStream(streamId)) ?? undefined
    },
    async running(threadId) {
      return (await active(threadId)) !== undefined
    },
    async close() {
      if (connected === undefined) return
      await connected.catch(() => undefined)
      await Promise.all([
        listener.isOpen ? listener.close() : undefined,
        client.isOpen ? client.close() : undefined,
      ])
    },
  }
}
