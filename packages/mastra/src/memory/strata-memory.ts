import { type MastraDBMessage, MessageList } from '@mastra/core/agent/message-list'
import {
  MastraMemory,
  type MemoryConfig,
  type MessageDeleteInput,
  type StorageThreadType,
  type WorkingMemoryTemplate,
} from '@mastra/core/memory'
import type { InputProcessor, OutputProcessor } from '@mastra/core/processors'
import type { RequestContext } from '@mastra/core/request-context'
import type {
  StorageCloneThreadInput,
  StorageCloneThreadOutput,
  StorageListMessagesInput,
  StorageListThreadsInput,
  StorageListThreadsOutput,
} from '@mastra/core/storage'
import {
  type HistoryMode,
  type Item,
  invalidOptions,
  type JsonObject,
  type Memory,
  StrataError,
  type Thread,
} from '@strata-memory/core'
import { toDBMessages } from '../messages/db-messages'
import { mastraTracer } from '../telemetry/mastra-tracer'
import { toStrataThreadId } from '../threads/thread-id-mapping'
import type { MastraThreadRecord } from '../threads/thread-record'
import { ThreadRecordWrites } from '../threads/thread-record-writes'
import { type MastraTool, strataTools } from '../tools/strata-tools'
import { type CallMemoryOptions, unsupportedCallOptions } from './call-options'
import { memoryConfigOf, memoryContextOf } from './memory-context'
import { type ProcessorHost, StrataProcessor } from './strata-processor'
import { filterThreads, pageOf, sameJson } from './thread-listing'

/** Options of {@link StrataMemory}. */
export interface StrataMemoryOptions<L extends string = string> {
  /** The Strata memory whose store keeps the agent's threads (`createMemory()`). */
  memory: Memory<L>
  /**
   * The memory's id in Mastra.
   * @default 'strata-memory'
   */
  id?: string
  /**
   * The level whose context the model receives.
   * @default the thread's current level
   */
  level?: NoInfer<L>
  /**
   * The thread's system prompt, first in its context (the agent's instructions stay, before it).
   * @default none
   */
  system?: string
  /**
   * What a call's messages hold: `'new'` (Mastra's usual call: only the new message), `'full'` (the
   * app re-sends the whole conversation), `'auto'` (told from the stored tail); see core's
   * `appendUnseen`.
   * @default 'new'
   */
  history?: HistoryMode
  /**
   * The memory tools the agent gets through `listTools`: `true` for `memory_store`, `memory_retrieve`
   * and `memory_query`; `{ scopes: true }` adds `enter_scope` and `exit_scope`; `false` for none.
   * @default true
   */
  tools?: boolean | { scopes?: boolean }
  /**
   * Strata's spans (`strata.context`, `strata.compaction`, `strata.summarize`, `strata.store.<op>`) in
   * Mastra's traces: while Mastra observability traces an agent run, they start as its child spans.
   * `false` keeps them out. A tracer the app gave `createMemory({ telemetry: { tracer } })` wins
   * either way: Strata's spans then go to it, not to Mastra.
   * @default true
   */
  telemetry?: boolean
  /**
   * One request at a time per thread: an `agent.generate` or `agent.stream` holds its thread from
   * its input to its result (`thread.hold()`), so a second request on the same thread — here or in
   * another process sharing the store — is refused before it stores anything. Mastra throws its
   * `MastraError` (`AGENT_GENERATE_FAILED`, …) with, in its `cause` chain, a `MastraError` with id
   * `STRATA_THREAD_BUSY` whose `cause` is the `StrataError`: `strataErrorOf(error)?.code` reads it.
   * A request that fails gives the thread back. `ttlMs`: how long the store's lease outlives a
   * process that died holding it.
   * @default { ttlMs: core's default (30 s) }
   */
  hold?: { ttlMs?: number }
  /**
   * Mastra's `readOnly` for every call of this memory's agents (a call may also ask with
   * `memory: { options: { readOnly: true } }`): the model gets the thread's context and the call's
   * own messages, and nothing is stored — no message, no thread record, no compaction, no hold.
   * @default false
   */
  readOnly?: boolean
}

const HISTORY_MODES: readonly HistoryMode[] = ['auto', 'full', 'new']

const unsupported = (method: string, why: string): never =>
  invalidOptions(`StrataMemory.${method}() is not supported: ${why}`, { method, reason: 'unsupported' })

const toThread = (record: MastraThreadRecord): StorageThreadType => ({
  id: record.threadId,
  resourceId: record.resourceId,
  createdAt: new Date(record.createdAt),
  updatedAt: new Date(record.updatedAt),
  ...(record.title === undefined ? {} : { title: record.title }),
  ...(record.metadata === undefined ? {} : { metadata: record.metadata }),
})

/** Two records of one thread that differ at most in their times. */
const sameThread = (a: MastraThreadRecord, b: MastraThreadRecord) =>
  a.threadId === b.threadId &&
  a.resourceId === b.resourceId &&
  (a.title ?? '') === (b.title ?? '') &&
  sameJson(a.metadata ?? {}, b.metadata ?? {})

const plainMetadata = (metadata: Record<string, unknown> | undefined): JsonObject | undefined =>
  metadata === undefined ? undefined : (JSON.parse(JSON.stringify(metadata)) as JsonObject)

/**
 * Strata as a Mastra agent's memory: `new Agent({ memory: new StrataMemory({ memory }) })`. Threads
 * (with their resource) and messages live once, in the Strata store; each call stores the new input at
 * the thread's current level, sends the model the thread's context instead of the history, stores each
 * tool step and the answer, and reports the provider's input tokens. Mastra's memory API (threads by id
 * and by resource, messages, delete) answers from the same store. See the README for every method.
 *
 * @example
 * const agent = new Agent({ name: 'helper', instructions, model, memory: new StrataMemory({ memory: createMemory() }) })
 * await agent.generate('Plan the garden', { memory: { thread: 'ana@example.com/garden', resource: 'ana' } })
 */
export class StrataMemory<L extends string = string> extends MastraMemory {
  /** The Strata memory behind this one. */
  readonly strata: Memory<L>
  readonly #processor: StrataProcessor
  readonly #tools: Record<string, MastraTool>
  /** Ids of the Mastra messages of agent runs in progress: the processor stores them, never `saveMessages`. */
  readonly #claimed = new Set<string>()
  /** The Mastra thread records, held back while a run holds their thread. */
  readonly #records: ThreadRecordWrites
  /** The memory's own `readOnly`: no agent run of it stores anything. */
  readonly #readOnly: boolean

  constructor(options: StrataMemoryOptions<L>) {
    const {
      memory,
      id = 'strata-memory',
      level,
      system,
      history = 'new',
      tools = true,
      telemetry = true,
      hold = {},
      readOnly = false,
    } = options ?? ({} as StrataMemoryOptions<L>)
    if (typeof memory?.thread !== 'function' || typeof memory.store?.getState !== 'function') {
      invalidOptions('new StrataMemory() needs { memory }: pass the memory from createMemory().')
    }
    if (typeof id !== 'string' || id.length === 0)
      invalidOptions('StrataMemory: id must be a non-empty string.')
    if (level !== undefined) memory.ladder.assert(level)
    if (system !== undefined && typeof system !== 'string')
      invalidOptions('StrataMemory: system must be a string.')
    if (!HISTORY_MODES.includes(history)) {
      invalidOptions(
        `StrataMemory: history must be 'auto', 'full' or 'new' (got ${JSON.stringify(history)}).`,
      )
    }
    const scopes = typeof tools === 'object' && tools !== null ? tools.scopes : false
    if (
      typeof tools !== 'boolean' &&
      (typeof tools !== 'object' || tools === null || (scopes !== undefined && typeof scopes !== 'boolean'))
    ) {
      invalidOptions('StrataMemory: tools must be true, false or { scopes: boolean }.')
    }
    if (typeof telemetry !== 'boolean') invalidOptions('StrataMemory: telemetry must be true or false.')
    if (typeof readOnly !== 'boolean') invalidOptions('StrataMemory: readOnly must be true or false.')
    if (typeof hold !== 'object' || hold === null) invalidOptions('StrataMemory: hold must be an object.')
    const { ttlMs } = hold
    if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && ttlMs > 0)) {
      invalidOptions(
        `StrataMemory: hold.ttlMs must be a whole number of milliseconds above 0 (got ${String(ttlMs)}).`,
      )
    }
    super({
      id,
      name: 'StrataMemory',
      options: { lastMessages: false, semanticRecall: false, generateTitle: false, readOnly },
    })
    this.strata = memory
    this.#readOnly = readOnly
    this.#records = new ThreadRecordWrites(() => memory.store)
    if (telemetry) memory.adoptTracer('mastra', mastraTracer)
    const host: ProcessorHost = {
      threadOf: (requestContext) => this.#threadOfContext(requestContext),
      readOnly: (requestContext) => readOnly || memoryConfigOf(requestContext)?.readOnly === true,
      refusedOptions: (requestContext) => unsupportedCallOptions(memoryConfigOf(requestContext)),
      level,
      system,
      history,
      onTransition: (listener) => memory.on('transition', listener),
      holdTtlMs: ttlMs,
      stored: (strataId) => this.#records.touch(strataId),
      held: (strataId, held) => (held ? this.#records.hold(strataId) : this.#records.release(strataId)),
      claim: (messageIds, claimed) => {
        for (const id of messageIds) {
          if (claimed) this.#claimed.add(id)
          else this.#claimed.delete(id)
        }
      },
    }
    this.#processor = new StrataProcessor(host)
    this.#tools =
      tools === false
        ? {}
        : strataTools(memory as Memory, (ids) => this.#threadOfIds(ids), { scopes: scopes === true })
  }

  /**
   * Resolves when the background work of every thread opened through the Strata memory (waterfall and
   * budget compactions started after a run's writes) has ended: `await memory.settled()` before
   * closing the store, as Mastra's docs say. Never rejects.
   */
  override settled(): Promise<void> {
    return this.strata.settled()
  }

  /** The Strata thread of a Mastra thread id (`toStrataThreadId`), opened on the memory. */
  async thread(threadId: string): Promise<Thread<L>> {
    return this.strata.thread(await toStrataThreadId(threadId))
  }

  async #threadOfContext(requestContext: RequestContext | undefined): Promise<Thread | undefined> {
    const threadId = memoryContextOf(requestContext)?.thread?.id
    return threadId === undefined ? undefined : this.thread(threadId)
  }

  async #threadOfIds({ threadId }: { threadId?: string }): Promise<Thread | undefined> {
    return threadId === undefined ? undefined : this.thread(threadId)
  }

  async #record(threadId: string): Promise<{ strataId: string; record: MastraThreadRecord | undefined }> {
    const strataId = await toStrataThreadId(threadId)
    const record = await this.#records.read(strataId)
    // A hashed id that another Mastra id already holds: never answer with someone else's thread.
    if (record !== undefined && record.threadId !== threadId) {
      throw new StrataError({
        code: 'STRATA_INVALID_THREAD_ID',
        message: `Mastra thread ids ${JSON.stringify(threadId)} and ${JSON.stringify(record.threadId)} map onto the same Strata thread '${strataId}': use a shorter thread id.`,
        details: { threadId, reason: 'collision' },
      })
    }
    return { strataId, record }
  }

  async #existing(threadId: string, method: string) {
    const found = await this.#record(threadId)
    if (found.record === undefined) {
      throw new StrataError({
        code: 'STRATA_INVALID_THREAD_ID',
        message: `StrataMemory.${method}(): no thread ${JSON.stringify(threadId)}: save it first (saveThread or createThread), or call the agent with memory: { thread, resource }.`,
        details: { threadId, reason: 'not-found' },
      })
    }
    return found as { strataId: string; record: MastraThreadRecord }
  }

  override async getThreadById({ threadId }: { threadId: string }): Promise<StorageThreadType | null> {
    const { record } = await this.#record(threadId)
    return record === undefined ? null : toThread(record)
  }

  /**
   * Stores the Mastra thread record. A read-only memory, or a read-only agent call (Mastra passes the
   * call's memory config when it creates the thread of a run), stores nothing: the thread stays as it
   * was, or absent.
   */
  override async saveThread({
    thread,
    memoryConfig,
  }: {
    thread: StorageThreadType
    memoryConfig?: CallMemoryOptions | undefined
  }): Promise<StorageThreadType> {
    if (typeof thread?.resourceId !== 'string' || thread.resourceId.length === 0) {
      invalidOptions('StrataMemory.saveThread(): the thread needs a resourceId.', { threadId: thread?.id })
    }
    // A call Strata refuses for its memory options stores nothing, its new thread's record included.
    const refused = unsupportedCallOptions(memoryConfig)
    if (refused !== undefined) throw refused
    if (this.#readOnly || memoryConfig?.readOnly === true) return thread
    const { strataId, record: old } = await this.#record(thread.id)
    const now = new Date().toISOString()
    const metadata = plainMetadata(thread.metadata)
    const record: MastraThreadRecord = {
      threadId: thread.id,
      resourceId: thread.resourceId,
      createdAt: old?.createdAt ?? (thread.createdAt instanceof Date ? thread.createdAt.toISOString() : now),
      updatedAt: now,
      ...(thread.title === undefined ? {} : { title: thread.title }),
      ...(metadata === undefined ? {} : { metadata }),
    }
    try {
      await this.#records.write(strataId, record)
    } catch (error) {
      // Another request holds the thread. When it has just stored this very thread (Mastra's first step
      // of a second request racing the first one's creation of it), the save changes nothing stored:
      // it is not refused here, where Mastra would wrap the refusal as AGENT_GENERATE_FAILED, and the
      // request is refused at its first step as busy, in the shape the README documents.
      if (!StrataError.isInstance(error, 'STRATA_THREAD_BUSY')) throw error
      const stored = await this.#records.read(strataId)
      if (stored === undefined || !sameThread(stored, record)) throw error
      return toThread(stored)
    }
    return toThread(record)
  }

  override async updateThread({
    id,
    title,
    metadata,
  }: {
    id: string
    title?: string
    metadata?: Record<string, unknown>
  }): Promise<StorageThreadType> {
    const { strataId, record } = await this.#existing(id, 'updateThread')
    const kept = plainMetadata(metadata)
    const updated: MastraThreadRecord = {
      ...record,
      updatedAt: new Date().toISOString(),
      ...(title === undefined ? {} : { title }),
      ...(kept === undefined ? {} : { metadata: kept }),
    }
    await this.#records.write(strataId, updated)
    return toThread(updated)
  }

  override async updateThreadResourceId({
    threadId,
    resourceId,
  }: {
    threadId: string
    resourceId: string
  }): Promise<StorageThreadType> {
    const { strataId, record } = await this.#existing(threadId, 'updateThreadResourceId')
    if (typeof resourceId !== 'string' || resourceId.length === 0) {
      invalidOptions('StrataMemory.updateThreadResourceId(): resourceId must be a non-empty string.')
    }
    const updated = { ...record, resourceId, updatedAt: new Date().toISOString() }
    await this.#records.write(strataId, updated)
    return toThread(updated)
  }

  override async listThreads(args: StorageListThreadsInput = {}): Promise<StorageListThreadsOutput> {
    const records: MastraThreadRecord[] = []
    for (const strataId of await this.strata.listThreads()) {
      const record = await this.#records.read(strataId)
      if (record !== undefined) records.push(record)
    }
    const { items, ...page } = pageOf(filterThreads(records, args), args.page, args.perPage ?? 100)
    return { threads: items.map(toThread), ...page }
  }

  override async deleteThread(threadId: string): Promise<void> {
    const { strataId } = await this.#record(threadId)
    await this.strata.deleteThread(strataId)
  }

  /** Every item the thread ever held, active and archived, oldest first. */
  async #allItems(strataId: string): Promise<Item[]> {
    const [archived, active] = await Promise.all([
      this.strata.store.readArchive(strataId),
      this.strata.store.read(strataId),
    ])
    return [...archived, ...active].sort((a, b) => a.seq - b.seq)
  }

  override async recall(args: StorageListMessagesInput & { vectorSearchString?: string }) {
    const threadIds = Array.isArray(args.threadId) ? args.threadId : [args.threadId]
    let messages: MastraDBMessage[] = []
    for (const threadId of threadIds) {
      const { strataId, record } = await this.#record(threadId)
      if (record === undefined) continue
      if (args.resourceId !== undefined && record.resourceId !== args.resourceId) continue
      messages.push(
        ...toDBMessages(await this.#allItems(strataId), { threadId, resourceId: record.resourceId }),
      )
    }
    const range = args.filter?.dateRange
    if (range !== undefined) {
      messages = messages.filter((message) => {
        const time = message.createdAt.getTime()
        const start = range.start?.getTime()
        const end = range.end?.getTime()
        if (start !== undefined && (range.startExclusive ? time <= start : time < start)) return false
        if (end !== undefined && (range.endExclusive ? time >= end : time > end)) return false
        return true
      })
    }
    if (args.orderBy?.direction === 'DESC') messages.reverse()
    const { items, ...page } = pageOf(messages, args.page, args.perPage ?? 40)
    return { messages: items, ...page }
  }

  /**
   * Stores messages given outside an agent run (an import, a seeded thread) in their threads. A run's
   * own messages are the processor's to store: Mastra's saves of them while the run goes on
   * (`savePerStep`, a suspended tool) store nothing, so nothing is stored twice.
   */
  override async saveMessages({ messages }: { messages: MastraDBMessage[]; memoryConfig?: MemoryConfig }) {
    const byThread = new Map<string, MastraDBMessage[]>()
    for (const message of messages) {
      if (message.role === 'system' || message.role === 'signal' || this.#claimed.has(message.id)) continue
      if (typeof message.threadId !== 'string') {
        invalidOptions('StrataMemory.saveMessages(): every message needs its threadId.', { id: message.id })
      }
      byThread.set(message.threadId, [...(byThread.get(message.threadId) ?? []), message])
    }
    for (const [threadId, list] of byThread) {
      const { strataId } = await this.#existing(threadId, 'saveMessages')
      const models = new MessageList({ threadId }).add(list, 'memory').get.all.aiV5.model()
      const thread = await this.strata.thread(strataId)
      await thread.append(models, { format: 'ai-sdk' })
    }
    return { messages }
  }

  override async deleteMessages(_messageIds: MessageDeleteInput): Promise<void> {
    unsupported(
      'deleteMessages',
      'a Strata thread is an append-only log. To drop an answer and what followed it, rewind the thread (const thread = await memory.thread(threadId); await thread.rewind({ afterSeq })): the messages move to the archive, where memory_query still finds them.',
    )
  }

  override async cloneThread(_args: StorageCloneThreadInput): Promise<StorageCloneThreadOutput> {
    return unsupported(
      'cloneThread',
      "a thread's levels, scopes, summaries and content cannot be copied message by message. Start a new thread, or give a sub-agent the parent's content (memory.thread(id, { content: { parent, access } })).",
    )
  }

  /** Working memory is read from the thread's semantic facts: one `- fact` line each, or null when it has none. */
  override async getWorkingMemory({
    threadId,
  }: {
    threadId: string
    resourceId?: string
  }): Promise<string | null> {
    const { strataId, record } = await this.#record(threadId)
    if (record === undefined) return null
    const facts = (await this.strata.store.read(strataId)).filter((item) => item.type === 'fact')
    if (facts.length === 0) return null
    return [...new Set(facts.map((fact) => fact.text))].map((text) => `- ${text}`).join('\n')
  }

  /** No template: Strata's facts are written by its summarizers, not filled in by the model. */
  override async getWorkingMemoryTemplate(): Promise<WorkingMemoryTemplate | null> {
    return null
  }

  override async updateWorkingMemory(): Promise<void> {
    unsupported(
      'updateWorkingMemory',
      "Strata's semantic facts are written by its summarizers as the thread is compacted; the model stores notes with the memory_store tool.",
    )
  }

  override async __experimental_updateWorkingMemoryVNext(): Promise<{ success: boolean; reason: string }> {
    return unsupported(
      '__experimental_updateWorkingMemoryVNext',
      "Strata's semantic facts are written by its summarizers; the model stores notes with the memory_store tool.",
    )
  }

  override listTools(): Record<string, MastraTool> {
    return this.#tools
  }

  /** Strata's processor only: Mastra's own history, working memory and saving processors never run. */
  override async getInputProcessors(): Promise<InputProcessor[]> {
    return [this.#processor as InputProcessor]
  }

  override async getOutputProcessors(): Promise<OutputProcessor[]> {
    return [this.#processor as OutputProcessor]
  }
}
