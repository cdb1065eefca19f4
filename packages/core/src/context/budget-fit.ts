import type { Item, MessagePart } from '../items'
import type { ContextMessage } from './context-message'
import { renderContext, shownMemoryItems } from './render-context'

/** The tokens an old step's results are cut to when a context must shrink to its budget. */
export const CUT_RESULT_TOKENS = 64

/** What {@link fitToBudget} works on and with. */
export interface BudgetFitInput<I extends Item> {
  system: string | undefined
  /** The system prompt's tokens, as `countMessage` counts it (the caller has counted it already). */
  systemTokens: number
  /** The context-memory items (summaries and facts) the context would show. */
  memoryItems: readonly Item[]
  /** The level view as the context would show it (citations expanded), oldest first. */
  view: readonly I[]
  /**
   * The ids of the items a context always keeps: the current request (the newest user message of the
   * log's view) and the scopes' opening items. Notes built for the context are never among them.
   */
  keep: ReadonlySet<string>
  /** The most tokens the context may hold. */
  budget: number
  /** The tokens of a message as the memory counts them (the same count the budget is checked with). */
  countMessage: (message: { content: readonly MessagePart[] }) => number
  /**
   * An item with its long parts cut to about `maxTokens` each; with `brief`, a part shown from a
   * citation first takes the citation's brief form.
   */
  shrink: (item: I, maxTokens: number, brief: boolean) => I
}

/** A context that fits, or why it cannot. */
export type BudgetFit =
  | {
      fits: true
      messages: ContextMessage[]
      tokens: number
      /** View items left out of this context to fit (they stay in the log). */
      omitted: number
    }
  | {
      fits: false
      /** The system prompt's tokens and those of what the context cannot leave out (the current request). */
      systemTokens: number
      requestTokens: number
    }

/** The note a context carries when it leaves view items out to fit its budget. */
export function omittedNote(count: number): ContextMessage {
  const what = count === 1 ? '1 earlier item' : `${count} earlier items`
  return {
    role: 'system',
    content: [
      {
        type: 'text',
        text: `[MEMORY:OMITTED] ${what} of this conversation are left out of this context to keep it within its token budget; they are stored in full: memory_query finds them and memory_retrieve returns them.`,
      },
    ],
  }
}

/**
 * Fits a context into its token budget, reading only what it is given (a context stays read-only).
 * When the whole context is over the budget, in order until it fits: older steps' tool results and long
 * texts are cut to {@link CUT_RESULT_TOKENS} (a citation's brief form), then the oldest steps leave
 * the context (a tool call always with its results) with one `[MEMORY:OMITTED]` note, then the oldest
 * memory slots (episodic summaries, facts, then short- and long-term summaries), then the newest step
 * is cut to what is left (its long parts sharing it), then to the small size and, last, left out. The current request (the newest user message of the view) and the
 * scope's opening items always stay: when they and the system prompt alone are over the budget, the
 * answer says so with the numbers.
 */
export function fitToBudget<I extends Item>(input: BudgetFitInput<I>): BudgetFit {
  const { system, systemTokens, budget, countMessage } = input
  const render = (memoryItems: readonly Item[], view: readonly I[], omitted: number) => {
    const messages = renderContext({ ...(system === undefined ? {} : { system }), memoryItems, view })
    if (omitted > 0) messages.splice(firstViewMessage(messages), 0, omittedNote(omitted))
    return messages
  }
  const total = (messages: readonly ContextMessage[]) =>
    messages.reduce((sum, message) => sum + countMessage(message), 0)

  const whole = render(input.memoryItems, input.view, 0)
  const wholeTokens = total(whole)
  if (wholeTokens <= budget) return { fits: true, messages: whole, tokens: wholeTokens, omitted: 0 }

  const view = [...input.view]
  const groups = steps(view)
  const kept = new Array<boolean>(view.length).fill(true)
  const keeps = new Set<number>()
  view.forEach((item, index) => {
    if (input.keep.has(item.id)) keeps.add(index)
  })
  const itemTokens = (item: I) => (item.type === 'message' ? countMessage(item) : 0)
  let memory = shownMemoryItems(input.memoryItems)
  const memoryTokens = () => total(render(memory, [], 0))
  let estimate = memoryTokens() + view.reduce((sum, item) => sum + itemTokens(item), 0)
  estimate += systemTokens
  const note = countMessage(omittedNote(view.length))
  let omitted = 0

  const shrinkGroup = (group: readonly number[], maxTokens = CUT_RESULT_TOKENS) => {
    for (const index of group) {
      const before = itemTokens(view[index]!)
      view[index] = input.shrink(view[index]!, maxTokens, maxTokens === CUT_RESULT_TOKENS)
      estimate -= before - itemTokens(view[index]!)
    }
  }
  const dropGroup = (group: readonly number[]) => {
    if (omitted === 0) estimate += note
    for (const index of group) {
      kept[index] = false
      omitted++
      estimate -= itemTokens(view[index]!)
    }
  }
  const droppable = (group: readonly number[]) => !group.some((index) => keeps.has(index))
  const older = groups.slice(0, -1)
  const newest = groups.at(-1) ?? []

  for (const group of older) if (estimate > budget) shrinkGroup(group)
  for (const group of older) if (estimate > budget && droppable(group)) dropGroup(group)
  while (estimate > budget && memory.length > 0) {
    const before = memoryTokens()
    memory = withoutOldestSlot(memory)
    estimate -= before - memoryTokens()
  }
  // The newest step keeps what the rest leaves free, its long parts sharing it; then less.
  if (estimate > budget) {
    const own = newest.reduce((sum, index) => sum + itemTokens(view[index]!), 0)
    const parts = newest.reduce((sum, index) => sum + longParts(view[index]!), 0) || 1
    const free = budget - (estimate - own)
    const share = Math.floor(free / parts) - NOTE_TOKENS
    if (share > CUT_RESULT_TOKENS) shrinkGroup(newest, share)
  }
  if (estimate > budget) shrinkGroup(newest)
  if (estimate > budget && droppable(newest)) dropGroup(newest)

  const shown = view.filter((_, index) => kept[index])
  const messages = render(memory, shown, omitted)
  const tokens = total(messages)
  if (tokens <= budget) return { fits: true, messages, tokens, omitted }
  // Last, only what a context cannot leave out: with the note when it fits, else without it.
  const essential = view.filter((_, index) => keeps.has(index))
  const left = input.view.length - essential.length
  for (const note of [left, 0]) {
    const bare = render([], essential, note)
    const bareTokens = total(bare)
    if (bareTokens <= budget) return { fits: true, messages: bare, tokens: bareTokens, omitted: left }
  }
  let requestTokens = 0
  for (const index of keeps) requestTokens += itemTokens(input.view[index]!)
  return { fits: false, systemTokens, requestTokens }
}

/** What a cut part's note and the message around it cost, about. */
const NOTE_TOKENS = 48

/** The parts of an item a cut shortens: texts, reasoning and tool results. */
function longParts(item: Item): number {
  if (item.type !== 'message') return 0
  return item.content.filter(
    (part) => part.type === 'text' || part.type === 'reasoning' || part.type === 'tool-result',
  ).length
}

/** Where the view starts among rendered messages: after the system prompt and the memory slots. */
function firstViewMessage(messages: readonly ContextMessage[]): number {
  let index = 0
  while (index < messages.length && messages[index]!.role === 'system') index++
  return index
}

/**
 * The view's steps, oldest first, as lists of view indexes: an assistant message with the messages
 * that hold its calls' results; every other item alone. A tool call never leaves without its results.
 */
function steps(view: readonly Item[]): number[][] {
  const groups: number[][] = []
  const byCall = new Map<string, number[]>()
  view.forEach((item, index) => {
    if (item.type !== 'message') {
      groups.push([index])
      return
    }
    let group: number[] | undefined
    for (const part of item.content) {
      if (part.type === 'tool-result') group ??= byCall.get(part.toolCallId)
    }
    if (group === undefined) {
      group = []
      groups.push(group)
    }
    group.push(index)
    for (const part of item.content) if (part.type === 'tool-call') byCall.set(part.toolCallId, group)
  })
  return groups
}

/**
 * The memory items less the oldest of the lowest slot still filled: episodic summaries first, then
 * facts, then the short-term and the long-term summary.
 */
function withoutOldestSlot(memory: readonly Item[]): Item[] {
  const order: ((item: Item) => boolean)[] = [
    (item) => item.type === 'summary' && item.tier === 'episodic',
    (item) => item.type === 'fact',
    (item) => item.type === 'summary' && item.tier === 'short-term',
    (item) => item.type === 'summary' && item.tier === 'long-term',
  ]
  for (const inSlot of order) {
    const index = memory.findIndex(inSlot)
    if (index >= 0) return memory.filter((_, at) => at !== index)
  }
  return memory.slice(1)
}
