import { BaseListChatMessageHistory } from '@langchain/core/chat_history'
import { type BaseMessage, SystemMessage } from '@langchain/core/messages'
import {
  invalidOptions,
  type Memory,
  type MessageItem,
  openAppThread,
  toStoreThreadId,
} from '@strata-memory/core'
import { fromLangChainMessage } from '../messages/from-langchain'
import { toLangChainMessage, toLangChainMessages } from '../messages/to-langchain'

/** Options of {@link StrataChatMessageHistory}. */
export interface StrataChatMessageHistoryOptions<L extends string = string> {
  /** The memory that holds the thread. */
  memory: Memory<L>
  /** The thread the history reads and writes (a session id). */
  threadId: string
  /**
   * What `getMessages()` returns: `'context'`, the thread's context (memory slots as system messages,
   * then the level's view, transitions and summaries in place of closed scopes) — what a chain should
   * send to its model; `'messages'`, every message of the thread's active log, each with its
   * `memory_level` and `memory_id` in `additional_kwargs`.
   * @default 'context'
   */
  read?: 'context' | 'messages'
  /**
   * The level whose context `getMessages()` returns.
   * @default the thread's current level
   */
  level?: NoInfer<L>
  /**
   * The thread's system prompt, first in the context.
   * @default none
   */
  system?: string
  /**
   * Where the context's system messages (the system prompt and the memory slots) go: `'merge'`, one
   * `SystemMessage` first in the list (chat models such as Anthropic's take a system message only
   * there); `'omit'`, left out, for a chain whose prompt has its own system message.
   * @default 'merge'
   */
  systemMessages?: 'merge' | 'omit'
}

/**
 * A `BaseListChatMessageHistory` on a Strata thread, for apps still on the chat-history API
 * (`RunnableWithMessageHistory`): added messages are stored in the thread (levels, scopes and
 * compaction apply), and `getMessages()` returns the thread's context. Agents built with
 * `createAgent` use `strataMiddleware` instead.
 *
 * @example
 * const history = new StrataChatMessageHistory({ memory, threadId: sessionId })
 */
export class StrataChatMessageHistory<L extends string = string> extends BaseListChatMessageHistory {
  lc_namespace = ['strata', 'chat_history']
  readonly #memory: Memory<L>
  readonly #threadId: string
  readonly #read: 'context' | 'messages'
  readonly #level: L | undefined
  readonly #system: string | undefined
  readonly #systemMessages: 'merge' | 'omit'

  constructor(options: StrataChatMessageHistoryOptions<L>) {
    super()
    const {
      memory,
      threadId,
      read = 'context',
      level,
      system,
      systemMessages = 'merge',
    } = options ?? ({} as StrataChatMessageHistoryOptions<L>)
    if (typeof memory?.thread !== 'function') {
      invalidOptions('StrataChatMessageHistory needs { memory }: pass the memory from createMemory().')
    }
    if (typeof threadId !== 'string' || threadId.length === 0)
      invalidOptions('StrataChatMessageHistory: threadId must be a non-empty string.')
    if (read !== 'context' && read !== 'messages') {
      invalidOptions(
        `StrataChatMessageHistory: read must be 'context' or 'messages' (got ${JSON.stringify(read)}).`,
      )
    }
    if (systemMessages !== 'merge' && systemMessages !== 'omit') {
      invalidOptions(
        `StrataChatMessageHistory: systemMessages must be 'merge' or 'omit' (got ${JSON.stringify(systemMessages)}).`,
      )
    }
    if (level !== undefined) memory.ladder.assert(level)
    if (system !== undefined && typeof system !== 'string')
      invalidOptions('StrataChatMessageHistory: system must be a string.')
    this.#memory = memory
    this.#threadId = threadId
    this.#read = read
    this.#level = level
    this.#system = system
    this.#systemMessages = systemMessages
  }

  async getMessages(): Promise<BaseMessage[]> {
    const thread = await openAppThread(this.#memory, this.#threadId)
    if (this.#read === 'messages') {
      const items = (await thread.items()).filter((item) => item.type === 'message') as MessageItem[]
      return items.flatMap((item) =>
        toLangChainMessage(item, { memory_level: item.level, memory_id: item.id }),
      )
    }
    const context = await thread.context({
      ...(this.#level === undefined ? {} : { level: this.#level }),
      ...(this.#system === undefined ? {} : { system: this.#system }),
    })
    const messages = toLangChainMessages(context.messages, { level: context.stats.level })
    const system = messages.filter((message) => message.type === 'system')
    const rest = messages.filter((message) => message.type !== 'system')
    if (this.#systemMessages === 'omit' || system.length === 0) return rest
    const merged = new SystemMessage({
      content: system.map((message) => message.text).join('\n\n'),
      additional_kwargs: { memory_level: context.stats.level, strata: { kind: 'memory' } },
    })
    return [merged, ...rest]
  }

  async addMessage(message: BaseMessage): Promise<void> {
    await this.addMessages([message])
  }

  override async addMessages(messages: BaseMessage[]): Promise<void> {
    const thread = await openAppThread(this.#memory, this.#threadId)
    await thread.append(messages.map(fromLangChainMessage), { format: 'core' })
  }

  /** Deletes the thread (its log, archive and content). */
  override async clear(): Promise<void> {
    await this.#memory.deleteThread(await toStoreThreadId(this.#threadId))
  }
}
