import type { MastraDBMessage } from '@mastra/core/agent/message-list'
import {
  MastraMemory,
  type MemoryConfig,
  type MemoryConfigInternal,
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
import { invalidOptions, type Memory, StrataError, type Thread } from '@strata-memory/core'
import { recallText } from '../semantic-recall/semantic-recall'
import {
  asMastraSemanticRecall,
  DEFAULT_SEMANTIC_RECALL,
  resolveSemanticRecall,
} from '../semantic-recall/semantic-recall-config'
import { isoDate, plainMetadata, sameThread, toThread } from '../threads/mastra-thread'
import { resolveStrataThreadId } from '../threads/thread-id-mapping'
import type { MastraThreadRecord } from '../threads/thread-record'
import { ThreadRecordWrites } from '../threads/thread-record-writes'
import { type MastraTool, readingTools, strataTools } from '../tools/strata-tools'
import { mastraTracer } from '../tracing/tracer'
import { WorkingMemories } from '../working-memory/working-memories'
import { resolveWorkingMemory, type WorkingMemorySettings } from '../working-memory/working-memory-config'
import { workingMemoryPrompt } from '../working-memory/working-memory-prompt'
import { updateWorkingMemoryTool } from '../working-memory/working-memory-tool'
import { type CallMemoryOptions, refusedCallOptions } from './call-options'
import { memoryConfigOf, memoryContextOf } from './memory-context'
import {
  checkStrataMemoryOptions,
  type StrataMastraOptions,
  type StrataMemoryOptions,
} from './strata-memory-options'

export type { StrataMastraOptions, StrataMemoryOptions } from './strata-memory-options'

import { historyCap } from './last-messages'
import { threadBudgetOf } from './message-history'
import { recallMessages } from './message-recall'
import { searchMessages } from './message-search'
import { bindSavedThread, bindToResource, threadIdsToList, toStrataResourceId } from './resource-binding'
import { RunMessageIds } from './run-message-ids'
import { messagesToSave } from './saved-messages'
import { type ProcessorHost, StrataProcessor } from './strata-processor'
import { filterThreads, pageOf } from './thread-listing'

const unsupported = (method: string, why: string): never =>
  invalidOptions(`StrataMemory.${method}() is not supported: ${why}`, { method, reason: 'unsupported' })

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
  /** Ids of the Mastra messages of agent runs: the processor stores them, never `saveMessages`. */
  readonly #claimed = new RunMessageIds()
  /** The Mastra thread records, held back while a run holds their thread. */
  readonly #records: ThreadRecordWrites
  /** The memory's own `readOnly`: no agent run of it stores anything. */
  readonly #readOnly: boolean
  /** The memory's Mastra options; a call's are merged over them. */
  readonly #options: StrataMastraOptions
  readonly #workingMemories: WorkingMemories

  constructor(options: StrataMemoryOptions<L>) {
    const { memory, id, level, system, history, tools, telemetry, readOnly, mastraOptions, scopes, ttlMs } =
      checkStrataMemoryOptions(options)
    super({
      id,
      name: 'StrataMemory',
      options: {
        lastMessages: false,
        semanticRecall: false,
        generateTitle: mastraOptions.generateTitle ?? false,
        readOnly,
        ...(mastraOptions.workingMemory === undefined ? {} : { workingMemory: mastraOptions.workingMemory }),
      },
    })
    this.strata = memory
    this.#readOnly = readOnly
    this.#options = mastraOptions
    this.#records = new ThreadRecordWrites(() => memory.store)
    this.#workingMemories = new WorkingMemories(memory as Memory, this.#records)
    if (telemetry) memory.adoptTracer('mastra', mastraTracer)
    const lastMessages = (requestContext: RequestContext | undefined) =>
      historyCap(this.#options.lastMessages, memoryConfigOf(requestContext)?.lastMessages, 'agent.generate()')
    const host: ProcessorHost = {
      threadOf: (requestContext) => this.#threadOfContext(requestContext),
      readOnly: (requestContext) => readOnly || memoryConfigOf(requestContext)?.readOnly === true,
      refusedOptions: (requestContext) => refusedCallOptions(this.#options, memoryConfigOf(requestContext)),
      lastMessages,
      workingMemory: (requestContext, readOnly, thread) =>
        this.#workingMemoryPrompt(requestContext, readOnly, thread),
      recall: async (thread, requestContext, request) => {
        const context = memoryContextOf(requestContext)
        const settings = this.#semanticRecall(context?.memoryConfig, 'agent.generate()')
        if (settings === undefined || context?.resourceId === undefined) return undefined
        const resourceId = await toStrataResourceId(context.resourceId)
        const shown = { level, lastMessages: lastMessages(requestContext) }
        return recallText(memory as Memory, thread, resourceId, request, settings, shown)
      },
      bind: async (thread, requestContext) => {
        const resourceId = memoryContextOf(requestContext)?.resourceId
        if (resourceId !== undefined) await bindToResource(memory as Memory, thread.id, resourceId)
      },
      level,
      system,
      history,
      onTransition: (listener) => memory.on('transition', listener),
      holdTtlMs: ttlMs,
      stored: (strataId) => this.#records.touch(strataId),
      held: (strataId, held) => (held ? this.#records.hold(strataId) : this.#records.release(strataId)),
      claim: (messageIds, claimed, suspended) =>
        claimed === true
          ? this.#claimed.claim(messageIds, suspended ?? (() => {}))
          : this.#claimed.finish(messageIds, claimed === 'stored'),
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

  /** The semantic recall a call does (the memory's options with the call's over them), or undefined when off. */
  #semanticRecall(config: CallMemoryOptions | MemoryConfigInternal | undefined, where: string) {
    return resolveSemanticRecall(this.#options.semanticRecall, config?.semanticRecall, where)
  }

  /** The working memory a call uses (the memory's options with the call's over them), or undefined when off. */
  #workingMemory(config: CallMemoryOptions | MemoryConfigInternal | undefined, where: string) {
    return resolveWorkingMemory(this.#options.workingMemory, config?.workingMemory, where)
  }

  /** The working memory's system message for a run, or undefined when it is off or the run has no owner for it. */
  async #workingMemoryPrompt(requestContext: RequestContext | undefined, readOnly: boolean, thread: Thread) {
    const context = memoryContextOf(requestContext)
    const settings = this.#workingMemory(context?.memoryConfig, 'agent.generate()')
    if (settings === undefined) return undefined
    const owner = { threadId: context?.thread?.id, resourceId: context?.resourceId }
    if ((settings.scope === 'resource' ? owner.resourceId : owner.threadId) === undefined) return undefined
    const stored = await this.#workingMemories.read(settings, owner)
    // Core's slot shows a resource's working memory in the context of a thread bound to it: a run that
    // stores binds its thread; a read-only one shows it here when the thread is not bound yet.
    const bound =
      owner.resourceId !== undefined && thread.resource?.id === (await toStrataResourceId(owner.resourceId))
    const shownByContext = bound || (!readOnly && this.strata.store.flags?.resources === true)
    return workingMemoryPrompt(settings, stored, { readOnly, shownByContext })
  }

  /** The Strata thread of a Mastra thread id (`resolveStrataThreadId`), opened on the memory. */
  async thread(threadId: string): Promise<Thread<L>> {
    return this.strata.thread(await resolveStrataThreadId(this.strata.store, threadId))
  }

  /** The run's thread, opened with the run's input budget (`messageHistory.maxTokens`, or the memory's). */
  async #threadOfContext(requestContext: RequestContext | undefined): Promise<Thread | undefined> {
    const context = memoryContextOf(requestContext)
    const threadId = context?.thread?.id
    if (threadId === undefined) return undefined
    const budget = threadBudgetOf(this.#options.messageHistory, context?.memoryConfig?.messageHistory)
    return this.strata.thread(
      await resolveStrataThreadId(this.strata.store, threadId),
      budget === undefined ? {} : { budget },
    )
  }

  async #threadOfIds({ threadId }: { threadId?: string }): Promise<Thread | undefined> {
    return threadId === undefined ? undefined : this.thread(threadId)
  }

  override async getThreadById({ threadId }: { threadId: string }): Promise<StorageThreadType | null> {
    const { record } = await this.#records.lookup(threadId)
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
    const refused = refusedCallOptions(this.#options, memoryConfig)
    if (refused !== undefined) throw refused
    if (this.#readOnly || memoryConfig?.readOnly === true) return thread
    const { strataId, record: old } = await this.#records.lookup(thread.id)
    const now = new Date().toISOString()
    const metadata = plainMetadata(thread.metadata)
    const record: MastraThreadRecord = {
      threadId: thread.id,
      resourceId: thread.resourceId,
      createdAt: old?.createdAt ?? isoDate(thread.createdAt, now),
      updatedAt: isoDate(thread.updatedAt, now),
      ...(thread.title === undefined ? {} : { title: thread.title }),
      ...(metadata === undefined ? {} : { metadata }),
    }
    try {
      await this.#records.write(strataId, record)
      await bindSavedThread(this.strata as Memory, strataId, thread.resourceId)
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
    const { strataId, record } = await this.#records.existing(id, 'updateThread')
    const kept = plainMetadata(metadata)
    // The given keys over the stored ones, as Mastra's storages merge them.
    const updated: MastraThreadRecord = {
      ...record,
      updatedAt: new Date().toISOString(),
      ...(title === undefined ? {} : { title }),
      ...(kept === undefined ? {} : { metadata: { ...record.metadata, ...kept } }),
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
    const { strataId, record } = await this.#records.existing(threadId, 'updateThreadResourceId')
    if (typeof resourceId !== 'string' || resourceId.length === 0) {
      invalidOptions('StrataMemory.updateThreadResourceId(): resourceId must be a non-empty string.')
    }
    const updated = { ...record, resourceId, updatedAt: new Date().toISOString() }
    await this.#records.write(strataId, updated)
    if (this.strata.store.flags?.resources === true)
      await this.strata.resource(await toStrataResourceId(resourceId)).adoptThread(strataId)
    return toThread(updated)
  }

  override async listThreads(args: StorageListThreadsInput = {}): Promise<StorageListThreadsOutput> {
    const records: MastraThreadRecord[] = []
    for (const strataId of await threadIdsToList(this.strata as Memory, args.filter?.resourceId)) {
      const record = await this.#records.read(strataId)
      if (record !== undefined) records.push(record)
    }
    const { items, ...page } = pageOf(filterThreads(records, args), args.page, args.perPage ?? 100)
    return { threads: items.map(toThread), ...page }
  }

  override async deleteThread(threadId: string): Promise<void> {
    await this.strata.deleteThread(await this.#records.toDelete(threadId))
  }

  /**
   * The messages of the threads (`MastraDBMessage`), active and archived; see `recallMessages`. With
   * `vectorSearchString` (Mastra's server search, Studio), the best matches of it instead, ranked by
   * `memory_query` over the thread or its resource's threads (`searchMessages`).
   */
  override async recall(
    args: StorageListMessagesInput & { vectorSearchString?: string; threadConfig?: MemoryConfigInternal },
  ) {
    const text = args.vectorSearchString?.trim() ?? ''
    const recordOf = (threadId: string) => this.#records.lookup(threadId)
    if (text.length === 0 || typeof args.threadId !== 'string')
      return recallMessages(this.strata.store, recordOf, args, this.#options.lastMessages)
    const settings =
      this.#semanticRecall(args.threadConfig, 'StrataMemory.recall()') ?? DEFAULT_SEMANTIC_RECALL
    const { threadId, resourceId } = args
    const messages = await searchMessages(
      this.strata as Memory,
      recordOf,
      { threadId, resourceId, text },
      settings,
    )
    return { messages, total: messages.length, page: 0, perPage: false as const, hasMore: false }
  }

  /**
   * Mastra's merged config, with semantic recall reported on (the memory's, or Strata's defaults):
   * Mastra's `/memory/search` route asks only then. A run recalls only when its own options say so.
   */
  override getMergedThreadConfig(config?: MemoryConfigInternal): MemoryConfigInternal {
    const merged = super.getMergedThreadConfig(config)
    // Mastra's constructor calls this before the memory's own fields exist.
    if (!(#options in this) || config?.semanticRecall === false) return merged
    const settings = this.#semanticRecall(config, 'getMergedThreadConfig()') ?? DEFAULT_SEMANTIC_RECALL
    return { ...merged, semanticRecall: asMastraSemanticRecall(settings) }
  }

  /**
   * Stores messages given outside an agent run (an import, a seeded thread) in their threads. A run's
   * own messages are the processor's to store: Mastra's saves of them while the run goes on
   * (`savePerStep`, a suspended tool) store nothing, so nothing is stored twice. A read-only memory
   * (or `memoryConfig.readOnly`) stores nothing: an agent network saves its exchange this way.
   */
  override async saveMessages({
    messages,
    memoryConfig,
  }: {
    messages: MastraDBMessage[]
    memoryConfig?: MemoryConfig
  }) {
    if (this.#readOnly || memoryConfig?.readOnly === true) return { messages }
    const byThread = new Map<string, MastraDBMessage[]>()
    for (const message of messages) {
      if (message.role === 'system' || message.role === 'signal' || this.#claimed.saved(message)) continue
      if (typeof message.threadId !== 'string') {
        invalidOptions('StrataMemory.saveMessages(): every message needs its threadId.', { id: message.id })
      }
      byThread.set(message.threadId, [...(byThread.get(message.threadId) ?? []), message])
    }
    for (const [threadId, list] of byThread) {
      const { strataId, record } = await this.#records.existing(threadId, 'saveMessages')
      const models = await messagesToSave(this.strata.store, strataId, { ...record, threadId }, list)
      if (models.length > 0) await (await this.strata.thread(strataId)).append(models, { format: 'ai-sdk' })
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

  /**
   * The working memory of the thread (scope `'thread'`) or of its resource (scope `'resource'`,
   * Mastra's default) as text (JSON text with a schema), or null when it is off or never written.
   */
  override async getWorkingMemory({
    threadId,
    resourceId,
    memoryConfig,
  }: {
    threadId: string
    resourceId?: string
    memoryConfig?: MemoryConfigInternal
  }): Promise<string | null> {
    const settings = this.#workingMemory(memoryConfig, 'StrataMemory.getWorkingMemory()')
    if (settings === undefined) return null
    if (settings.scope === 'resource' && resourceId === undefined) {
      resourceId = (await this.getThreadById({ threadId }))?.resourceId
      if (resourceId === undefined) return null
    }
    return this.#workingMemories.read(settings, { threadId, resourceId })
  }

  /** The template: Markdown, or the schema as JSON Schema (`format: 'json'`); null when working memory is off. */
  override async getWorkingMemoryTemplate({
    memoryConfig,
  }: {
    memoryConfig?: MemoryConfigInternal
  } = {}): Promise<WorkingMemoryTemplate | null> {
    const settings = this.#workingMemory(memoryConfig, 'StrataMemory.getWorkingMemoryTemplate()')
    if (settings === undefined) return null
    if (settings.jsonSchema !== undefined)
      return { format: 'json', content: JSON.stringify(settings.jsonSchema) }
    return settings.template === undefined ? null : { format: 'markdown', content: settings.template }
  }

  /**
   * Writes the whole working memory, unconditionally (Mastra's writes carry no version; Strata's own
   * `resource.setWorkingMemory(value, { version })` keeps its check). With a schema, JSON text that
   * fits it; anything else is `STRATA_INVALID_OPTIONS`, nothing written. Off: nothing written.
   */
  override async updateWorkingMemory({
    threadId,
    resourceId,
    workingMemory,
    memoryConfig,
  }: {
    threadId: string
    resourceId?: string
    workingMemory: string
    memoryConfig?: MemoryConfigInternal
  }): Promise<void> {
    const settings = this.#workingMemory(memoryConfig, 'StrataMemory.updateWorkingMemory()')
    if (settings === undefined) {
      invalidOptions(
        'StrataMemory.updateWorkingMemory(): working memory is off: turn it on with new StrataMemory({ memory, options: { workingMemory: { enabled: true } } }) (or in the call’s memory options). Nothing was written.',
        { reason: 'disabled' },
      )
    }
    if (settings.scope === 'resource' && resourceId === undefined)
      resourceId = (await this.getThreadById({ threadId }))?.resourceId
    await this.#workingMemories.write(
      settings,
      { threadId, resourceId },
      workingMemory,
      'updateWorkingMemory',
    )
  }

  /** `updateWorkingMemory`, answering `{ success, reason }` instead of throwing. */
  override async __experimental_updateWorkingMemoryVNext(args: {
    threadId: string
    resourceId?: string
    workingMemory: string
    memoryConfig?: MemoryConfigInternal
  }): Promise<{ success: boolean; reason: string }> {
    try {
      await this.updateWorkingMemory(args)
      return { success: true, reason: 'Working memory updated.' }
    } catch (error) {
      return { success: false, reason: error instanceof Error ? error.message : String(error) }
    }
  }

  /**
   * The memory tools, with working memory on `updateWorkingMemory` too; a read-only call gets only those
   * that read. Only a call's options can be refused here (the memory's were checked when it was made).
   */
  override listTools(config?: MemoryConfig): Record<string, MastraTool> {
    const settings = this.#workingMemory(config, 'agent.generate()')
    if (this.#readOnly || config?.readOnly === true) return readingTools(this.#tools)
    if (settings === undefined || !settings.agentManaged) return this.#tools
    return { ...this.#tools, updateWorkingMemory: this.#updateTool(settings) }
  }

  #updateTool(settings: WorkingMemorySettings) {
    return updateWorkingMemoryTool(settings, (owner, memory) =>
      this.#workingMemories.update(settings, owner, memory),
    )
  }

  /** Strata's processor only: Mastra's own history, working memory and saving processors never run. */
  override async getInputProcessors(): Promise<InputProcessor[]> {
    return [this.#processor as InputProcessor]
  }

  override async getOutputProcessors(): Promise<OutputProcessor[]> {
    return [this.#processor as OutputProcessor]
  }
}
