import { type CompactionOptions, resolveCompaction } from '../compaction'
import {
  type ContentBinding,
  type ContentOptions,
  resolveContentBinding,
  resolveContentOptions,
  type ThreadOptions,
} from '../content'
import { invalidOptions, StrataError } from '../errors'
import { createEventEmitter, type MemoryEventListener, type MemoryEventName } from '../events'
import { assertThreadId } from '../items'
import { createLevelLadder, DEFAULT_LEVELS, type LevelLadder } from '../levels'
import {
  bindThread,
  checkEmbedder,
  type Embedder,
  IndexPool,
  type Resource,
  ResourceHandle,
  type ResourceOptions,
  resolveResourceOptions,
} from '../resources'
import { inMemoryStore, type StrataStore, type StrataStoreBase } from '../stores'
import { assertResourceId } from '../stores/resource-arguments'
import { checkStore, hasResourceMethods, resourceMethods } from '../stores/store-check'
import { patternSummarizer, type Summarizer } from '../summarizers'
import { type FrameworkTracer, MemoryTracing, type TelemetryOptions, tracedStore } from '../telemetry'
import { sealOptionsFor } from '../thread-state/sealed-items'
import type { HoldRegistry } from '../thread-state/thread-hold'
import { loadThreadLog } from '../thread-state/thread-open'
import { type TokenCounter, tokenEstimator } from '../tokens'
import { checkMemoryOptionKeys } from './option-keys'
import { Thread } from './thread'
import { checkThreadBudget, ThreadBudget } from './thread-budget'
import { ThreadResourceLink } from './thread-resource'

/** The default modes, for the default ladder: the level each mode works at. */
export const DEFAULT_MODES = { idle: 'task', 'working-solo': 'task', orchestrating: 'project' } as const

/** Options of {@link createMemory}. */
export interface MemoryOptions<L extends string = string> {
  /**
   * Where threads are kept: a store declaring `specificationVersion: 'v2'` (or `'v1'`: everything but
   * `thread.hold()`, which needs the lease). A store without the content methods
   * ({@link StrataStoreBase}) is taken with `content: false` only.
   * @default inMemoryStore()
   */
  store?: StrataStore
  /**
   * The level ladder, broad to narrow: 2 to 6 distinct names.
   * @default ['global', 'project', 'task']
   */
  levels?: readonly L[]
  /**
   * Writes scope summaries (and, with compaction, the other summaries).
   * @default patternSummarizer()
   */
  summarizer?: Summarizer
  /**
   * Counts tokens for stats. For exact counts use `gptTokenizer()` from `@strata-memory/core/tokenizer`.
   * @default tokenEstimator()
   */
  tokenCounter?: TokenCounter
  /**
   * Application modes and the level each works at, for `thread.setMode`.
   * @default { idle: 'task', 'working-solo': 'task', orchestrating: 'project' } with the default ladder, else {}
   */
  modes?: Readonly<Record<string, NoInfer<L>>>
  /**
   * The clock for item timestamps, in epoch ms.
   * @default Date.now
   */
  clock?: () => number
  /**
   * Generates item ids.
   * @default crypto.randomUUID
   */
  generateId?: () => string
  /**
   * Compaction policies: `waterfall` (short-term and long-term summaries behind an immediate window)
   * and `budget` (episodic summaries and facts when the provider-reported prompt nears the budget).
   * @default { waterfall: false, budget: false }
   */
  compaction?: CompactionOptions
  /**
   * The content channel: tool results (and user attachments) over `offloadAboveBytes` are stored once
   * in the content store, shown in full in the first context after them and as a citation with a
   * memory id afterwards. `false` stores nothing by itself; the memory tools still work.
   * @default { offloadAboveBytes: 4096, plugins: [webPagePlugin()], attachments: true }
   */
  content?: ContentOptions | false
  /**
   * OpenTelemetry: `{ tracer }` (e.g. `trace.getTracer('my-app')`) starts spans for context builds,
   * compactions, summarizer calls and store operations. Without one, the adapters pass their
   * framework's own (see {@link Memory.adoptTracer}); with neither, no span work is done.
   * @default {}
   */
  telemetry?: TelemetryOptions
  /**
   * Resources (`memory.resource(id)`, `memory.thread(id, { resource })`): the working memory's schema,
   * template and size, and whether contexts recall from the resource's other threads. Resources need a
   * store with `flags.resources`.
   * @default { workingMemory: { maxTokens: 1000 }, recall: false }
   */
  resources?: ResourceOptions
  /**
   * Semantic ranking for resources: `resource.query`, `memory_query` with `scope: 'resource'` and the
   * context's recalls combine word ranking with the embeddings' cosine similarity (reciprocal rank
   * fusion). A bound thread's appends are embedded in the background; what is missing (content,
   * older items) is embedded by the first query that needs it. Vectors are stored beside each thread
   * under the embedder's `model`. @default none: word ranking alone
   */
  embedder?: Embedder
}

/** A memory: threads, their shared configuration and events. */
export interface Memory<L extends string = string> {
  readonly ladder: LevelLadder<L>
  /** The store the memory calls: the one it was given, with spans around each call once it traces. */
  readonly store: StrataStore
  /**
   * Opens a thread, creating it on first write. The same id gives the same thread object.
   * Throws `STRATA_INVALID_THREAD_ID` for an id outside `[A-Za-z0-9_.-]{1,128}` or starting with `.`.
   * A sub-agent's thread can use its parent's content: `{ content: { parent, access: 'shared' | 'read-only' } }`;
   * reopening an open thread with a different `content` option is `STRATA_INVALID_OPTIONS`.
   * `{ budget: { inputTokens } }` gives the thread its own input budget (under the memory's).
   *
   * @example
   * const worker = await memory.thread('chat-7.worker-1', { content: { parent: 'chat-7', access: 'read-only' } })
   */
  thread(threadId: string, options?: ThreadOptions): Promise<Thread<L>>
  /**
   * A resource (a user, a team, an account): its threads, working memory, facts, recall across its
   * threads and documents. The same id gives the same object. Throws `STRATA_INVALID_THREAD_ID` for an
   * id outside the thread-id rule; its methods throw `STRATA_STORE_CAPABILITY` when the store has no
   * `flags.resources`.
   *
   * @example
   * await memory.thread('user-42.chat-8', { resource: 'user-42' })
   * const hits = await memory.resource('user-42').query('vegetarian dinner')
   */
  resource(resourceId: string): Resource
  /** Ids of the stored threads, sorted. */
  listThreads(): Promise<string[]>
  /** Deletes a thread and everything it holds. */
  deleteThread(threadId: string): Promise<void>
  /**
   * Listens to `transition`, `context`, `compaction-start`, `compaction-end` and `rewind` events;
   * returns a function that stops listening.
   */
  on<E extends MemoryEventName>(event: E, listener: MemoryEventListener<E>): () => void
  /**
   * For adapters: passes a framework's own tracer (the AI SDK's OpenTelemetry integration's,
   * Mastra's observability), asked as each span starts, so Strata's spans join the framework's
   * traces. `name` identifies the framework: passing it again replaces the earlier one. Ignored, and
   * false, when the app gave `createMemory({ telemetry: { tracer } })`: the app's tracer wins.
   */
  adoptTracer(name: string, tracer: FrameworkTracer): boolean
  /**
   * Settles when the background work (waterfall and budget compactions started after writes) of every
   * thread opened through this memory has ended. Never rejects. Hand it to the platform so a
   * serverless function is not stopped first: `after(memory.settled())`, `ctx.waitUntil(memory.settled())`.
   */
  settled(): Promise<void>
  /**
   * Ends the memory: waits for {@link Memory.settled}, releases the holds still held through it, then
   * closes the store (`store.close()`, when it has one). Idempotent: a second call returns the first
   * call's promise. Use the memory no more afterwards.
   */
  close(): Promise<void>
}

/**
 * Creates a memory. Every option has a working default: `createMemory()` keeps threads in process
 * memory with the default ladder and the offline pattern summarizer.
 *
 * @example
 * const memory = createMemory({ levels: ['global', 'session', 'interaction'] })
 * const thread = await memory.thread('user-42.chat-7')
 * await thread.append({ role: 'user', content: 'Hello' })
 */
export function createMemory<const L extends string = (typeof DEFAULT_LEVELS)[number]>(
  options: Omit<MemoryOptions<L>, 'store' | 'content'> & { store: StrataStoreBase; content: false },
): Memory<L>
export function createMemory<const L extends string = (typeof DEFAULT_LEVELS)[number]>(
  options?: MemoryOptions<L>,
): Memory<L>
export function createMemory<const L extends string = (typeof DEFAULT_LEVELS)[number]>(
  options: Omit<MemoryOptions<L>, 'store'> & { store?: StrataStoreBase } = {},
): Memory<L> {
  checkMemoryOptionKeys(options)
  const {
    store: givenStore = inMemoryStore(),
    levels = DEFAULT_LEVELS as unknown as readonly L[],
    summarizer = patternSummarizer(),
    tokenCounter = tokenEstimator(),
    clock = Date.now,
    generateId = () => crypto.randomUUID(),
  } = options
  checkStore(givenStore, { content: options.content !== false })
  // Core reaches the content methods only through contentMethods(), which checks that they are there.
  const tracing = new MemoryTracing(options.telemetry?.tracer)
  const traceStore = () => tracedStore(givenStore as StrataStore, () => tracing.current())
  let store = tracing.enabled ? traceStore() : (givenStore as StrataStore)
  const ladder = createLevelLadder(levels)
  const usesDefaultLadder =
    levels.length === DEFAULT_LEVELS.length && levels.every((level, index) => level === DEFAULT_LEVELS[index])
  const modes = options.modes ?? ((usesDefaultLadder ? DEFAULT_MODES : {}) as Record<string, L>)
  for (const [mode, level] of Object.entries(modes)) {
    if (!ladder.has(level)) {
      throw new StrataError({
        code: 'STRATA_INVALID_LEVEL',
        message: `Mode '${mode}' maps to unknown level ${JSON.stringify(level)}: use one of ${ladder.levels.join(', ')}.`,
        details: { mode, level },
      })
    }
  }
  for (const [name, value] of [
    ['summarizer', summarizer],
    ['tokenCounter', tokenCounter],
  ] as const) {
    const method = name === 'summarizer' ? 'summarize' : 'count'
    if (
      typeof value !== 'object' ||
      value === null ||
      typeof (value as unknown as Record<string, unknown>)[method] !== 'function'
    ) {
      invalidOptions(`createMemory(): ${name} must be an object with a ${method}() method.`)
    }
  }

  const events = createEventEmitter()
  const threads = new Map<string, Promise<Thread<L>>>()
  const compaction = resolveCompaction(options.compaction)
  const content = resolveContentOptions(options.content)
  const resourceOptions = resolveResourceOptions(options.resources)
  const embedder = checkEmbedder(options.embedder)
  /** Holds granted through this memory's threads and not yet released: `close()` releases them. */
  const holds: HoldRegistry = new Set()
  const indexes = new IndexPool(resourceOptions.index.maxEntries)
  const deps = {
    store,
    holds,
    ladder,
    summarizer,
    tokenCounter,
    modes,
    events,
    clock,
    generateId,
    compaction,
    content,
    indexes,
    /** Asked at each span: the tracer to start it on, or none. */
    get tracer() {
      return tracing.current()
    },
  }
  /** The content binding each open thread was opened with. */
  const bindings = new Map<string, ContentBinding>()
  /** Each open thread's tie to its resource. */
  const links = new Map<string, ThreadResourceLink>()
  /** Each open thread's own input budget (`memory.thread(id, { budget })`). */
  const budgets = new Map<string, ThreadBudget>()
  /** Thread-index touches still running, which resource listings wait for. */
  const touches = new Set<Promise<void>>()
  const resources = new Map<string, ResourceHandle>()
  const resourceOf = (resourceId: string): ResourceHandle => {
    let resource = resources.get(resourceId)
    if (resource === undefined) {
      resource = new ResourceHandle(resourceId, {
        get store() {
          return store
        },
        options: resourceOptions,
        tokenCounter,
        embedder,
        indexes,
        touched: async () => {
          await Promise.all([...touches])
        },
        adopted: (threadId, to) => {
          const link = links.get(threadId)
          if (link !== undefined) link.resourceId = to
        },
        deleted: (deleted) => {
          for (const link of links.values()) if (link.resourceId === deleted) link.resourceId = undefined
        },
      })
      resources.set(resourceId, resource)
    }
    return resource
  }

  const open = async (threadId: string, binding: ContentBinding, ownBudget: boolean): Promise<Thread<L>> => {
    const stored = store.getState(threadId)
    const [log, state, resourceId] = await Promise.all([
      // The state may hold the log's digest (a store without slots): read once, for both.
      loadThreadLog<L>(store, threadId, tokenCounter, {
        state: stored,
        tracer: deps.tracer,
        // A thread opened with a budget of its own gets budget compaction, which reads every item.
        seal: ownBudget ? undefined : sealOptionsFor(deps),
      }),
      stored,
      // A thread bound in the store is its resource's, whether or not this open names it.
      hasResourceMethods(store) ? store.getThreadResource(threadId) : undefined,
    ])
    const mode = typeof state?.mode === 'string' ? state.mode : undefined
    const link = new ThreadResourceLink(
      {
        threadId,
        resource: resourceOf,
        store: () => (hasResourceMethods(store) ? store : undefined),
        options: resourceOptions,
        tokenCounter,
        clock,
        embedder,
        track: (touch) => {
          touches.add(touch)
          void touch.finally(() => touches.delete(touch))
        },
      },
      resourceId,
    )
    links.set(threadId, link)
    const budget = new ThreadBudget()
    budgets.set(threadId, budget)
    return new Thread<L>(threadId, deps, log, mode, binding, state?.lastUsage, link, budget)
  }

  /**
   * Binds an open thread to `resourceId` (compare-and-set on its first binding); a thread bound to
   * another resource is refused, and stays where it is.
   */
  const bind = async (threadId: string, resourceId: string) => {
    const methods = resourceMethods(store, `memory.thread('${threadId}', { resource })`)
    const found = await bindThread(methods, threadId, resourceId, () => false)
    if (found !== resourceId) {
      invalidOptions(
        `Thread '${threadId}' belongs to resource '${found}', not '${resourceId}': open it with { resource: '${found}' } or without a resource, or move it with memory.resource('${resourceId}').adoptThread('${threadId}').`,
        { threadId, resource: resourceId, boundTo: found },
      )
    }
    const link = links.get(threadId)
    if (link !== undefined) link.resourceId = resourceId
  }

  const settled = async (): Promise<void> => {
    // Threads opened while waiting are waited for too.
    let waited = new Set<Promise<Thread<L>>>()
    for (;;) {
      const pending = [...threads.values()].filter((thread) => !waited.has(thread))
      if (pending.length === 0) return
      waited = new Set([...waited, ...pending])
      await Promise.all(
        pending.map((thread) =>
          thread.then(
            (opened) => opened.settled(),
            () => undefined,
          ),
        ),
      )
    }
  }
  let closing: Promise<void> | undefined

  return {
    ladder,
    settled,
    close() {
      closing ??= (async () => {
        await settled()
        await Promise.allSettled([...holds].map((hold) => hold.release()))
        await store.close?.()
      })()
      return closing
    },
    get store() {
      return store
    },
    async thread(threadId, threadOptions) {
      assertThreadId(threadId)
      let binding = resolveContentBinding(threadId, threadOptions)
      const budgetOption = threadOptions?.budget
      if (budgetOption !== undefined) checkThreadBudget(threadId, budgetOption)
      const resourceId = threadOptions?.resource
      if (resourceId !== undefined) {
        assertResourceId(resourceId)
        resourceMethods(store, `memory.thread('${threadId}', { resource })`)
      }
      // A sub-agent of a sub-agent that shares its parent's content shares the same content.
      const parentBinding = bindings.get(binding.owner)
      if (binding.access === 'shared' && parentBinding?.access === 'shared')
        binding = { ...binding, owner: parentBinding.owner }
      let thread = threads.get(threadId)
      const openWith = bindings.get(threadId)
      if (thread !== undefined && openWith !== undefined && threadOptions?.content !== undefined) {
        if (openWith.owner !== binding.owner || openWith.access !== binding.access) {
          invalidOptions(
            `Thread '${threadId}' is already open with content ${openWith.access === 'own' ? 'of its own' : `${openWith.access} from '${openWith.owner}'`}; open it with the same content option, or without one.`,
            { threadId },
          )
        }
      }
      if (thread === undefined) {
        thread = open(threadId, binding, budgetOption !== undefined && budgetOption !== 'memory')
        threads.set(threadId, thread)
        bindings.set(threadId, binding)
        thread.catch(() => {
          threads.delete(threadId)
          bindings.delete(threadId)
          links.delete(threadId)
          budgets.delete(threadId)
        })
      }
      if (budgetOption !== undefined) {
        await thread
        await budgets.get(threadId)?.set(budgetOption)
      }
      if (resourceId === undefined) return thread
      const opened = await thread
      await bind(threadId, resourceId)
      return opened
    },
    resource(resourceId) {
      assertResourceId(resourceId)
      return resourceOf(resourceId)
    },
    listThreads: () => store.listThreads(),
    async deleteThread(threadId) {
      assertThreadId(threadId)
      threads.delete(threadId)
      bindings.delete(threadId)
      links.delete(threadId)
      budgets.delete(threadId)
      await store.deleteThread(threadId)
    },
    on: (event, listener) => events.on(event, listener),
    adoptTracer(name, tracer) {
      if (typeof name !== 'string' || name === '' || typeof tracer !== 'function') {
        invalidOptions(
          'memory.adoptTracer(name, tracer): name must be a non-empty string and tracer a function.',
        )
      }
      const wasEnabled = tracing.enabled
      if (!tracing.adopt(name, tracer)) return false
      // From now on store calls are traced whenever the framework traces; open threads read deps.store.
      if (!wasEnabled) deps.store = store = traceStore()
      return true
    },
  }
}
