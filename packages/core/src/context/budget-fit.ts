import type { Item, MessagePart } from '../items'
import type { ContextMessage } from './context-message'
import { CUT_RESULT_TOKENS, cutToTarget } from './cut-search'
import { omittedLines, omittedNote, omittedNoteMaxTokens, omittedNoteTokens } from './omitted-note'
import { renderContext, shownMemoryItems } from './render-context'

/** What {@link fitToBudget} works on and with. */
export interface BudgetFitInput<I extends Item> {
  system: string | undefined
  /** The resource's slots, shown after the system prompt and counted in `systemTokens`. */
  pinned?: readonly string[]
  /** The system prompt's tokens (and its pinned slots'), as `countMessage` counts them (counted already). */
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
  /**
   * The id `memory_retrieve` answers with the whole of a part of a view item, for the lines of the
   * omitted note. @default the item's id
   */
  sourceId?: (item: I, part: MessagePart) => string
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

/**
 * Fits a context into its token budget, reading only what it is given (a context stays read-only).
 * Nothing is cut or left out while the whole context fits. Otherwise:
 * 1. What stays is decided with every step at its smallest (long parts cut to {@link CUT_RESULT_TOKENS},
 *    a citation in its brief form) and the newest step held to {@link NEWEST_SHARE} of the budget: the
 *    oldest steps leave first (a tool call always with its results), listed in one `[MEMORY:OMITTED]`
 *    note that names what left and the ids that bring it back; then the oldest memory slots (episodic
 *    summaries, facts, then short- and long-term summaries); then the newest step, unless it is kept.
 * 2. The budget left is handed out newest first: the newest step gets all it can use, then the kept
 *    items, then the older steps newest first, each whole or cut to exactly what is left (so cuts fall
 *    on the oldest). The context ends within a few tokens of the budget whenever anything was cut or
 *    left out.
 * The current request and the scopes' opening items (`keep`) are never left out; when they and the
 * system prompt alone, at their smallest, are over the budget, the answer says so with the numbers.
 * Counts are of rendered messages, checked again on the final context.
 */
export function fitToBudget<I extends Item>(input: BudgetFitInput<I>): BudgetFit {
  const { system, budget, countMessage } = input
  const total = (messages: readonly ContextMessage[]) =>
    messages.reduce((sum, message) => sum + countMessage(message), 0)
  const whole = renderContext({
    ...(system === undefined ? {} : { system }),
    ...(input.pinned === undefined ? {} : { pinned: input.pinned }),
    memoryItems: input.memoryItems,
    view: input.view,
  })
  const wholeTokens = total(whole)
  if (wholeTokens <= budget) return { fits: true, messages: whole, tokens: wholeTokens, omitted: 0 }

  const planner = new FitPlanner(input)
  // The plan adds up the rendered size of each step; a final count that disagrees (a result answering
  // a call of another step) is taken off the target and planned again.
  for (const withNote of [true, false]) {
    let target = budget
    for (let attempt = 0; attempt < 3 && target > 0; attempt++) {
      const plan = planner.plan(target, withNote)
      if (plan === undefined) break
      const tokens = total(plan.messages)
      if (tokens <= budget) return { fits: true, messages: plan.messages, tokens, omitted: plan.omitted }
      // With a few tokens to spare, so that one more plan is mostly enough.
      target -= tokens - budget + REPLAN_SPARE_TOKENS
    }
  }
  return { fits: false, systemTokens: input.systemTokens, requestTokens: planner.essentialTokens() }
}

/** Taken off the target beyond the overshoot when a plan's final count is over the budget. */
const REPLAN_SPARE_TOKENS = 8

/** The share of the budget the newest step is held to while older steps are being left out. */
export const NEWEST_SHARE = 2 / 3

/** One step of the view: a tool call with its results, or one other item; its sizes as rendered. */
interface Step<I> {
  indexes: number[]
  items: I[]
  keep: boolean
  full: number
  /** Its long parts at {@link CUT_RESULT_TOKENS}, citations brief; computed when first needed. */
  floor?: { items: I[]; tokens: number }
  lines?: string[]
}

/** Plans fits of one input at one or more targets; steps' sizes and cuts are computed once. */
class FitPlanner<I extends Item> {
  readonly #input: BudgetFitInput<I>
  readonly #steps: Step<I>[]
  readonly #texts = new Map<string, number>()

  constructor(input: BudgetFitInput<I>) {
    this.#input = input
    this.#steps = steps(input.view).map((indexes) => {
      const items = indexes.map((index) => input.view[index]!)
      return {
        indexes,
        items,
        keep: items.some((item) => input.keep.has(item.id)),
        full: this.#measure(items),
      }
    })
  }

  /** The rendered tokens of view items alone (a step renders the same alone as in its context). */
  #measure = (items: readonly Item[]) => renderedTokens([], items, this.#input.countMessage)

  /** The tokens of a message with no content: what a message adds beside its text. */
  get #emptyMessage(): number {
    this.#empty ??= this.#input.countMessage({ content: [] })
    return this.#empty
  }

  #empty: number | undefined

  #countText = (text: string): number => {
    let tokens = this.#texts.get(text)
    if (tokens === undefined) {
      tokens = this.#input.countMessage({ content: [{ type: 'text', text }] }) - this.#emptyMessage
      this.#texts.set(text, tokens)
    }
    return tokens
  }

  #floor(step: Step<I>) {
    if (step.floor === undefined) {
      const items = step.items.map((item) => this.#input.shrink(item, CUT_RESULT_TOKENS, true))
      step.floor = { items, tokens: Math.min(step.full, this.#measure(items)) }
      if (step.floor.tokens === step.full) step.floor.items = step.items
    }
    return step.floor
  }

  #lines(step: Step<I>): string[] {
    const sourceId = this.#input.sourceId ?? ((item: I) => item.id)
    step.lines ??= omittedLines(step.items, sourceId)
    return step.lines
  }

  /**
   * The memory items with `slot` back, its text cut so that they render within `target` tokens (its
   * note names the slot's id, which `memory_retrieve` answers with the whole text); undefined when no
   * cut fits.
   */
  #cutSlot(slot: Item, memory: readonly Item[], target: number): Item[] | undefined {
    if (slot.type !== 'summary' && slot.type !== 'fact') return undefined
    const { countMessage, shrink } = this.#input
    let message = slotMessages.get(slot)
    if (message === undefined) {
      message = {
        ...slot,
        type: 'message',
        role: 'system',
        content: [{ type: 'text', text: slot.text }],
      } as Item
      slotMessages.set(slot, message)
    }
    const withSlot = (cut: Item) => {
      const text = cut.type === 'message' && cut.content[0]?.type === 'text' ? cut.content[0].text : slot.text
      const back = { ...slot, text } as Item
      return this.#input.memoryItems.flatMap((item) =>
        item === slot ? [back] : memory.includes(item) ? [item] : [],
      )
    }
    const measure = (items: readonly Item[]) => renderedTokens(withSlot(items[0]!), [], countMessage)
    const cut = cutToTarget({
      items: [message],
      full: measure([message]),
      target,
      shrink: (item, maxTokens) => shrink(item as I, maxTokens, false),
      measure,
      countMessage,
    })
    return cut === undefined ? undefined : withSlot(cut.items[0]!)
  }

  /** The tokens of the kept steps at their smallest: the least a context holds beside its system prompt. */
  essentialTokens(): number {
    let tokens = 0
    for (const step of this.#steps) if (step.keep) tokens += this.#floor(step).tokens
    return tokens
  }

  /**
   * The context planned for `budget`, or undefined when even the system prompt and the kept steps at
   * their smallest are over it. `withNote: false` leaves the omitted note out (the last resort).
   */
  plan(budget: number, withNote: boolean): { messages: ContextMessage[]; omitted: number } | undefined {
    const input = this.#input
    const { system, systemTokens } = input
    const steps = this.#steps
    const newest = steps.length - 1
    const out = new Array<boolean>(steps.length).fill(false)
    const lines: string[] = []
    let omittedItems = 0
    let memory = shownMemoryItems(input.memoryItems)
    const memoryTokens = () => renderedTokens(memory, [], input.countMessage)
    let memorySize = memoryTokens()
    const noteMax = omittedNoteMaxTokens(budget)
    const emptyMessage = this.#emptyMessage
    const note = () =>
      withNote && omittedItems > 0 ? omittedNote(omittedItems, lines, noteMax, this.#countText) : undefined
    let noteTokens = 0
    let stepTokens = 0
    for (const step of steps.slice(0, -1)) stepTokens += this.#floor(step).tokens
    // The newest step is held to its share of the budget while older steps leave.
    const newestStep = steps[newest]
    let newestTokens =
      newestStep === undefined
        ? 0
        : Math.min(
            newestStep.full,
            Math.max(this.#floor(newestStep).tokens, Math.floor(NEWEST_SHARE * (budget - systemTokens))),
          )
    /** Set when a step left and the note's tokens were not counted since. */
    let noteStale = false
    /**
     * What the plan needs so far. While the rest alone is over the budget the note's exact size
     * cannot change the answer, so it is counted only once the rest fits: a long thread leaves
     * thousands of steps out, each with its lines, before that.
     */
    const need = () => {
      const rest = systemTokens + memorySize + stepTokens + newestTokens
      if (noteStale && rest <= budget) {
        noteStale = false
        noteTokens =
          withNote && omittedItems > 0 ? omittedNoteTokens(lines, noteMax, this.#countText) + emptyMessage : 0
      }
      return noteStale ? rest : rest + noteTokens
    }
    const omit = (index: number) => {
      const step = steps[index]!
      out[index] = true
      omittedItems += step.items.length
      lines.push(...this.#lines(step))
      if (index === newest) newestTokens = 0
      else stepTokens -= this.#floor(step).tokens
      // Counted (from its lines' cached counts, without writing it) when `need` asks: counting or
      // writing the whole note again at each step that leaves cost most of a long thread's fit. The
      // final count of the context catches what the line-by-line count misses.
      noteStale = true
    }
    for (let index = 0; index < newest && need() > budget; index++) if (!steps[index]!.keep) omit(index)
    // Slots leave whole; the last to leave may come back cut when the budget has room left.
    let lastDropped: Item | undefined
    while (need() > budget && memory.length > 0) {
      const kept = withoutOldestSlot(memory)
      lastDropped = memory.find((item) => !kept.includes(item))
      memory = kept
      memorySize = memoryTokens()
    }
    if (need() > budget && newestStep !== undefined) newestTokens = this.#floor(newestStep).tokens
    if (need() > budget && newestStep !== undefined && !newestStep.keep) omit(newest)
    // A `need()` within the budget has counted the note: `noteTokens` below is its size.
    if (need() > budget) return undefined

    // Hand out what is left, newest first: the newest step, the kept ones, then the others.
    const shown = steps.map((step, index) => (out[index] ? [] : this.#floor(step).items))
    let left = budget - systemTokens - memorySize - noteTokens
    for (let index = 0; index < steps.length; index++)
      if (!out[index]) left -= this.#floor(steps[index]!).tokens
    const order = [...steps.keys()].filter((index) => !out[index]).reverse()
    order.sort((a, b) => rank(a) - rank(b))
    function rank(index: number) {
      return index === newest ? 0 : steps[index]!.keep ? 1 : 2
    }
    for (const index of order) {
      if (left <= 0) break
      // What little is left would show a few words of a cut and cost a search: not worth it.
      if (left < MIN_HAND_OUT && steps[index]!.full - this.#floor(steps[index]!).tokens > left) continue
      const step = steps[index]!
      const floor = this.#floor(step)
      if (step.full - floor.tokens <= left) {
        shown[index] = step.items
        left -= step.full - floor.tokens
        continue
      }
      const cut = cutToTarget({
        items: step.items,
        full: step.full,
        target: floor.tokens + left,
        shrink: input.shrink,
        measure: this.#measure,
        countMessage: input.countMessage,
      })
      if (cut !== undefined) {
        shown[index] = cut.items
        left -= cut.tokens - floor.tokens
      }
    }

    if (lastDropped !== undefined && left >= MIN_HAND_OUT) {
      const back = this.#cutSlot(lastDropped, memory, memorySize + left)
      if (back !== undefined) memory = back
    }

    const view: I[] = []
    const byIndex = new Map<number, I>()
    steps.forEach((step, index) => {
      step.indexes.forEach((at, position) => {
        if (!out[index]) byIndex.set(at, shown[index]![position]!)
      })
    })
    input.view.forEach((_, at) => {
      const item = byIndex.get(at)
      if (item !== undefined) view.push(item)
    })
    const messages = renderContext({
      ...(system === undefined ? {} : { system }),
      ...(input.pinned === undefined ? {} : { pinned: input.pinned }),
      memoryItems: memory,
      view,
    })
    const shownNote = note()
    if (shownNote !== undefined) messages.splice(firstViewMessage(messages), 0, shownNote.message)
    return { messages, omitted: omittedItems }
  }
}

/** Each memory slot as a message, for a cut of its text (the same object each time: cuts are kept by part). */
const slotMessages = new WeakMap<Item, Item>()

/** The fewest tokens worth cutting a step anew for, once the newest step and the kept ones are served. */
const MIN_HAND_OUT = 48

/** The tokens of the messages rendered from memory items and view items (no system prompt). */
function renderedTokens(
  memoryItems: readonly Item[],
  view: readonly Item[],
  countMessage: BudgetFitInput<Item>['countMessage'],
): number {
  return renderContext({ memoryItems, view }).reduce((sum, message) => sum + countMessage(message), 0)
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
