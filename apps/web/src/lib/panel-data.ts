import type { ContextMessage, ContextStats, Item, Memory, ThreadStatus } from '@strata-memory/core'
import { SYSTEM_PROMPT } from './project-plan'

/** One item of the thread as the timeline shows it. */
export interface TimelineItem {
  seq: number
  type: Item['type']
  level: string
  /** `user`, `assistant`, `tool`, `system` for messages; the summary tier; `transition`; `fact`. */
  kind: string
  /** A line for people. */
  text: string
  /** Whether the item is in the current level's view (else the timeline dims it). */
  inView: boolean
  /** Summaries: the seqs they cover (archived ranges are marked from these). */
  range?: { fromSeq: number; toSeq: number }
}

/** A scope as a band over the timeline: opened at `fromSeq`, closed at `toSeq` (open: undefined). */
export interface ScopeBand {
  level: string
  title: string
  fromSeq: number
  toSeq?: number
}

/** One message of the next call's context, as text. */
export interface ContextLine {
  role: string
  text: string
}

/** What the page's panels show: GET /api/memory?thread=…&level=… */
export interface PanelData {
  threadId: string
  /** The thread's current level. */
  level: string
  /** The level the context panel shows (the current one unless previewing). */
  previewLevel: string
  levels: readonly string[]
  scopes: { level: string; title: string }[]
  items: TimelineItem[]
  bands: ScopeBand[]
  context: { messages: ContextLine[]; stats: ContextStats }
  status: Pick<ThreadStatus, 'items' | 'tokens' | 'store' | 'compaction' | 'lastUsage'>
}

const clip = (text: string, max = 160) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

const gist = (value: unknown) => clip(typeof value === 'string' ? value : JSON.stringify(value), 100)

/** A message's parts as one line of text: tool calls and results by name. */
function partsText(content: ContextMessage['content']): string {
  return content
    .map((part) => {
      switch (part.type) {
        case 'text':
          return part.text
        case 'tool-call':
          return `→ ${part.toolName}(${gist(part.input)})`
        case 'tool-result':
          return `← ${part.toolName}: ${gist(part.output)}`
        default:
          return `[${part.type}]`
      }
    })
    .join('\n')
}

function timelineItem(item: Item, inView: ReadonlySet<number>): TimelineItem {
  const base = { seq: item.seq, type: item.type, level: item.level, inView: inView.has(item.seq) }
  switch (item.type) {
    case 'message':
      return {
        ...base,
        kind: item.scope ? 'opening' : item.role,
        text: clip(partsText(item.content)),
      }
    case 'transition':
      return { ...base, kind: 'transition', text: clip(item.agentFacingMessage), range: item.range }
    case 'summary':
      return { ...base, kind: `${item.tier} summary`, text: clip(item.text), range: item.range }
    default:
      return { ...base, kind: 'fact', text: clip(item.text) }
  }
}

/** Scopes as bands: closed ones from their transitions, open ones from the thread's open scopes. */
function scopeBands(items: readonly Item[], open: readonly { level: string; title: string; seq: number }[]) {
  const titles = new Map<number, string>()
  for (const item of items) if (item.type === 'message' && item.scope) titles.set(item.seq, item.scope.title)
  const bands: ScopeBand[] = []
  for (const item of items) {
    if (item.type !== 'transition') continue
    const title = titles.get(item.range.fromSeq) ?? ''
    bands.push({ level: item.fromLevel, title, fromSeq: item.range.fromSeq, toSeq: item.seq })
  }
  for (const scope of open) bands.push({ level: scope.level, title: scope.title, fromSeq: scope.seq })
  return bands.sort((a, b) => a.fromSeq - b.fromSeq)
}

/**
 * The panels' data for one thread: every active item with whether the current level's view holds it,
 * the scopes as bands, the exact context of the next call at `level` (read-only: a preview changes
 * nothing) and the thread's status.
 */
export async function panelData(memory: Memory, threadId: string, level?: string): Promise<PanelData> {
  const thread = await memory.thread(threadId)
  const levels = memory.ladder.levels
  const previewLevel = level ?? thread.level
  const [items, view, context, status] = await Promise.all([
    thread.items(),
    thread.view(),
    thread.context({ level: previewLevel, system: SYSTEM_PROMPT }),
    thread.status(),
  ])
  const inView = new Set(view.map((item) => item.seq))
  return {
    threadId,
    level: thread.level,
    previewLevel,
    levels,
    scopes: thread.scopes.map(({ level, title }) => ({ level, title })),
    items: items.map((item) => timelineItem(item, inView)),
    bands: scopeBands(items, thread.scopes),
    context: {
      messages: context.messages.map((message) => ({ role: message.role, text: partsText(message.content) })),
      stats: context.stats,
    },
    status: {
      items: status.items,
      tokens: status.tokens,
      store: status.store,
      compaction: status.compaction,
      ...(status.lastUsage === undefined ? {} : { lastUsage: status.lastUsage }),
    },
  }
}
