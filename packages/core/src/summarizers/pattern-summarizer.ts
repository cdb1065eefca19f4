import type { Item, JsonValue } from '../items'
import type { SummarizeOptions, SummarizeResult, Summarizer } from './summarizer'

/** Options of {@link patternSummarizer}. */
export interface PatternSummarizerOptions {
  /**
   * Names the action of a tool call. By default a short string `action` field of the call's input
   * when present (one tool, many actions), otherwise the tool name.
   * @default input.action ?? toolName
   */
  actionOf?: (toolName: string, input: JsonValue) => string
  /**
   * How many distinct actions to list before folding the rest into "N other".
   * @default 12
   */
  maxActions?: number
}

const defaultActionOf = (toolName: string, input: JsonValue): string => {
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    const value = input.action
    if (typeof value === 'string' && value.length > 0 && value.length <= 64) return value
  }
  return toolName
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`

/**
 * The default summarizer: offline and deterministic. It counts tool calls by action
 * ("15 create_shape, 3 update_shape"), failed calls, messages by role and closed sub-scopes (items of
 * nested scopes are counted too, so a project's summary aggregates its tasks), and ends with a line
 * for the outcome of a scope.
 *
 * @example
 * const { summary } = await patternSummarizer().summarize(items, { tier: 'scope' })
 */
export function patternSummarizer({
  actionOf = defaultActionOf,
  maxActions = 12,
}: PatternSummarizerOptions = {}): Summarizer {
  return {
    name: 'pattern',
    async summarize(items: readonly Item[], options: SummarizeOptions): Promise<SummarizeResult> {
      options.signal?.throwIfAborted()
      const actions = new Map<string, number>()
      let failed = 0
      let userMessages = 0
      let assistantMessages = 0
      let closedScopes = 0
      for (const item of items) {
        if (item.type === 'transition') closedScopes++
        if (item.type !== 'message' || item.scope !== undefined) continue
        if (item.role === 'user') userMessages++
        if (item.role === 'assistant' && item.content.some((part) => part.type === 'text'))
          assistantMessages++
        for (const part of item.content) {
          if (part.type === 'tool-call') {
            const label = actionOf(part.toolName, part.input)
            actions.set(label, (actions.get(label) ?? 0) + 1)
          } else if (part.type === 'tool-result' && part.isError) {
            failed++
          }
        }
      }
      // Most frequent first; ties by name, so the text is deterministic.
      const ranked = [...actions].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      const shown = ranked.slice(0, maxActions).map(([label, count]) => `${count} ${label}`)
      const others = ranked.slice(maxActions).reduce((sum, [, count]) => sum + count, 0)
      if (others > 0) shown.push(`${others} other`)
      const total = ranked.reduce((sum, [, count]) => sum + count, 0)

      const lines: string[] = []
      lines.push(total > 0 ? `${plural(total, 'tool call')}: ${shown.join(', ')}` : 'No tool calls')
      if (failed > 0) lines.push(`${plural(failed, 'tool call')} failed`)
      const talk: string[] = []
      if (userMessages > 0) talk.push(plural(userMessages, 'user message'))
      if (assistantMessages > 0) {
        talk.push(`${assistantMessages} assistant ${assistantMessages === 1 ? 'reply' : 'replies'}`)
      }
      if (closedScopes > 0) talk.push(plural(closedScopes, 'closed sub-scope'))
      if (talk.length > 0) lines.push(talk.join(', '))
      const scope = options.scope
      if (scope !== undefined) {
        const title = scope.title ? ` "${scope.title}"` : ''
        lines.push(`Outcome: ${scope.level}${title} ${outcomeText[scope.outcome]}`)
      }
      return { summary: `${lines.join('. ')}.`, facts: [] }
    },
  }
}

const outcomeText = { complete: 'completed', cancelled: 'cancelled', aborted: 'aborted' } as const
