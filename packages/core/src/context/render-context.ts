import type {
  FactItem,
  Item,
  MessageItem,
  MessagePart,
  SummaryItem,
  ToolCallPart,
  ToolResultPart,
} from '../items'
import { mergeFacts, normalizeFactText } from '../items/facts'
import type { ContextMessage, ContextMessageKind } from './context-message'
import { isNoteItem } from './omitted-note'

/** Caps of the memory slots. */
const MAX_EPISODIC = 3
/** The facts the semantic slot shows, the newest: the ones recalled into a context. */
export const MAX_FACTS = 20

/** The input of {@link renderContext}. */
export interface RenderContextInput {
  /** The system prompt, first when given. */
  system?: string
  /**
   * The resource's slots (`[MEMORY:WORKING …]`, `[MEMORY:RECALL]`): system messages right after the
   * system prompt, bounded by their own limits and counted with it.
   */
  pinned?: readonly string[]
  /** Facts and non-scope summaries of the thread, oldest first. */
  memoryItems: readonly Item[]
  /** The level view, oldest first. */
  view: readonly Item[]
}

const text = (value: string): MessagePart[] => [{ type: 'text', text: value }]

/** A message Strata renders from something other than a stored conversation message. */
const own = (role: 'system' | 'user', kind: ContextMessageKind, value: string): ContextMessage => ({
  role,
  content: text(value),
  kind,
})

function latest(items: readonly Item[], tier: SummaryItem['tier']): SummaryItem | undefined {
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index]!
    if (item.type === 'summary' && item.tier === tier) return item
  }
  return undefined
}

/**
 * The context-memory items the memory slots show, oldest first: the latest long-term and short-term
 * summaries, the items of the newest {@link MAX_FACTS} facts, and the newest episodic summaries.
 * Rendering them gives the same slots as rendering all of `memoryItems`.
 */
export function shownMemoryItems(memoryItems: readonly Item[]): Item[] {
  const shown = new Set<Item>()
  const longTerm = latest(memoryItems, 'long-term')
  if (longTerm) shown.add(longTerm)
  const shortTerm = latest(memoryItems, 'short-term')
  if (shortTerm) shown.add(shortTerm)
  const texts = new Set<string>()
  let episodic = 0
  for (let index = memoryItems.length - 1; index >= 0; index--) {
    const item = memoryItems[index]!
    if (item.type === 'summary' && item.tier === 'episodic' && episodic < MAX_EPISODIC) {
      episodic++
      shown.add(item)
    } else if (item.type === 'fact') {
      const key = normalizeFactText(item.text)
      if (key.length === 0) continue
      // Every occurrence of a shown fact counts: they merge into the one line (tags, confidence).
      if (texts.has(key) || texts.size < MAX_FACTS) {
        texts.add(key)
        shown.add(item)
      }
    }
  }
  return memoryItems.filter((item) => shown.has(item))
}

/**
 * The memory slots, in the normative order: long-term summary, short-term summary, semantic facts,
 * episodic summaries. Each filled slot is one system message right after the system prompt.
 */
function renderMemorySlots(memoryItems: readonly Item[]): ContextMessage[] {
  const messages: ContextMessage[] = []
  // A thread without summaries or facts (most, and every call of a young one) fills no slot.
  if (memoryItems.length === 0) return messages
  const longTerm = latest(memoryItems, 'long-term')
  if (longTerm) messages.push(own('system', 'memory', `[MEMORY:LONG-TERM]\n${longTerm.text}`))
  const shortTerm = latest(memoryItems, 'short-term')
  if (shortTerm) messages.push(own('system', 'memory', `[MEMORY:SHORT-TERM]\n${shortTerm.text}`))
  // The same fact written twice (a later confidence) is one fact.
  const facts = mergeFacts(
    memoryItems.filter((item): item is FactItem => item.type === 'fact'),
    [],
  ).slice(-MAX_FACTS)
  if (facts.length > 0) {
    const lines = facts.map((fact) => `- ${fact.text}`).join('\n')
    messages.push(own('system', 'memory', `[MEMORY:SEMANTIC]\n${lines}`))
  }
  const episodic = memoryItems
    .filter((item): item is SummaryItem => item.type === 'summary' && item.tier === 'episodic')
    .slice(-MAX_EPISODIC)
  if (episodic.length > 0) {
    const lines = episodic.map((summary, index) => `${index + 1}) ${summary.text}`).join('\n')
    messages.push(own('system', 'memory', `[MEMORY:EPISODIC]\n${lines}`))
  }
  return messages
}

/**
 * Where each tool call of the view gets its result, decided in one pass in view order (a result
 * answers the earlier call with its id that is still open, and one call only):
 * - `inPlace`: results of calls the provider runs (`providerExecuted`: web search, code execution)
 *   that are stored in an assistant message. The provider gives such a result in the assistant's own
 *   turn and expects it back there, so it is shown where it stands.
 * - `following`: every other result, from a tool message or stored in an assistant message, shown in
 *   one tool message right after its call's assistant message: a tool the application runs needs its
 *   result in a tool message, whatever message it was stored in.
 * Results whose call is not in the view (or already answered) are left out.
 */
export interface Pairing {
  inPlace: Set<ToolResultPart>
  following: Map<ToolCallPart, ToolResultPart>
  /** The calls still open (no result yet) at the end of the walk, by id. */
  open: Map<string, ToolCallPart>
  /** Whether a result answered a call of the `open` map the walk started from. */
  answeredEarlier: boolean
}

/** See {@link Pairing}; `open`: the calls an earlier part of the view left open (the map is walked on). */
export function pairResults(view: readonly Item[], open = new Map<string, ToolCallPart>()): Pairing {
  const earlier = open.size === 0 ? undefined : new Set(open.values())
  const pairing: Pairing = { inPlace: new Set(), following: new Map(), open, answeredEarlier: false }
  for (const item of view) {
    if (item.type !== 'message') continue
    for (const part of item.content) {
      if (part.type === 'tool-call') {
        // A repeated call id while the first is open: the first keeps it, the repeat is never answered.
        if (!open.has(part.toolCallId)) open.set(part.toolCallId, part)
        continue
      }
      if (part.type !== 'tool-result') continue
      const call = open.get(part.toolCallId)
      if (call === undefined) continue
      open.delete(part.toolCallId)
      if (earlier?.has(call) === true) pairing.answeredEarlier = true
      if (item.role === 'assistant' && call.providerExecuted === true) pairing.inPlace.add(part)
      else pairing.following.set(call, part)
    }
  }
  return pairing
}

/**
 * Renders one view message, keeping every tool call next to its results (see {@link pairResults}):
 * an assistant message keeps the results of provider-run calls in place, keeps the other calls that
 * have a result, and is followed by one tool message with those results in call order. A call with no
 * result in the view is left out, unless the provider runs it: its result is the provider's to give.
 * Tool messages are never rendered where they stand.
 */
function renderMessage(item: MessageItem, pairing: Pairing, out: ContextMessage[]) {
  if (item.role === 'tool') return
  if (item.role !== 'assistant') {
    const kind = item.scope !== undefined ? 'scope' : isNoteItem(item) ? 'note' : undefined
    out.push({ role: item.role, content: item.content, ...(kind === undefined ? {} : { kind }) })
    return
  }
  const kept: MessagePart[] = []
  const answered: ToolResultPart[] = []
  for (const part of item.content) {
    if (part.type === 'tool-result') {
      if (pairing.inPlace.has(part)) kept.push(part)
      continue
    }
    if (part.type === 'tool-call') {
      const result = pairing.following.get(part)
      if (result !== undefined) answered.push(result)
      else if (part.providerExecuted !== true) continue
    }
    kept.push(part)
  }
  if (kept.length > 0) out.push({ role: 'assistant', content: kept })
  if (answered.length > 0) out.push({ role: 'tool', content: answered })
}

/**
 * Builds the context in the normative order: system prompt → the resource's slots → long-term summary → short-term summary →
 * semantic facts → episodic summaries → the level view (transitions by their agent-facing text).
 * Pure and deterministic: the same input gives a byte-identical result.
 */
export function renderContext({ system, pinned, memoryItems, view }: RenderContextInput): ContextMessage[] {
  const messages = renderHead({ system, pinned, memoryItems })
  renderView(view, pairResults(view), messages)
  return messages
}

/** The messages {@link renderContext} puts before the view: the system prompt and the memory slots. */
export function renderHead({
  system,
  pinned,
  memoryItems,
}: Omit<RenderContextInput, 'view'>): ContextMessage[] {
  const messages: ContextMessage[] = []
  if (system !== undefined && system.length > 0) messages.push(own('system', 'system', system))
  for (const slot of pinned ?? []) messages.push(own('system', 'memory', slot))
  messages.push(...renderMemorySlots(memoryItems))
  return messages
}

/**
 * The view's messages, pushed to `out`, each tool call placed as `pairing` decides (see {@link pairResults}).
 * Transitions of one text share one part (it is frozen when handed out): a long thread's transitions
 * repeat a few texts (`[ACTIONS]: <8 task actions filtered for brevity>`), each then counted once.
 */
export function renderView(view: readonly Item[], pairing: Pairing, out: ContextMessage[]) {
  const transitions = new Map<string, MessagePart>()
  for (const item of view) {
    switch (item.type) {
      case 'message':
        renderMessage(item, pairing, out)
        break
      case 'transition': {
        const value = item.agentFacingMessage
        let part = transitions.get(value)
        if (part === undefined) {
          part = { type: 'text', text: value }
          transitions.set(value, part)
        }
        out.push({ role: 'user', content: [part], kind: 'transition' })
        break
      }
      case 'summary':
        out.push(own('user', 'summary', `[SUMMARY]: ${item.text}`))
        break
      case 'fact':
        out.push(own('user', 'fact', `[FACT]: ${item.text}`))
        break
    }
  }
}
