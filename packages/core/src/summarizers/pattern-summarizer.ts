import { invalidOptions, shownValue } from '../errors'
import type { Item, JsonValue } from '../items'
import { layoutSummary } from './pattern-layout'
import { PatternReading } from './pattern-reading'
import type { ToolCalls } from './pattern-tools'
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
   * How many distinct actions the headline lists before folding the rest into "N other".
   * @default 12
   */
  maxActions?: number
  /**
   * The longest short-term, long-term or episodic summary, in characters (at least 200). A summary is
   * also never longer than the text it replaces, unless that is under 300 characters.
   * @default 1200
   */
  maxChars?: number
  /**
   * The longest scope summary, in characters (at least 200): a parent's view may show many closed
   * scopes, each with its summary.
   * @default 600
   */
  maxScopeChars?: number
  /**
   * The most facts one summary returns: the user's facts first, then those of the answers, the
   * newest of each when there are more.
   * @default 10
   */
  maxFacts?: number
}

const defaultActionOf = (toolName: string, input: JsonValue): string => {
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    const value = input.action
    if (typeof value === 'string' && value.length > 0 && value.length <= 64) return value
  }
  return toolName
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`
const outcomeText = { complete: 'completed', cancelled: 'cancelled', aborted: 'aborted' } as const
/** The size a summary may always reach, however short what it replaces. */
const FLOOR_CHARS = 300

/**
 * The default summarizer: offline, deterministic and fast (linear in the items; it reads at most the
 * first 4 000 characters of any text or result). It keeps content, within `maxChars` (1200; a scope
 * summary `maxScopeChars`, 600):
 *
 * - a headline: tool calls counted by action ("20 tool calls: 15 create_shape, 5 update_shape"),
 *   failures, and for a scope its outcome;
 * - `Identifiers:` ids, codes (`ZX-4471`), emails, URLs, file paths, amounts, dates and names found in
 *   the user's words, tool calls, results and answers, verbatim;
 * - `User:` each message's first sentences and every sentence that states a preference, a name or a
 *   decision; `Tools:` each call with its arguments' gist and its result's first line or fields;
 *   `Assistant:` the first sentence of each reply; `Earlier:` what summaries among the items said
 *   (a long-term summary carries its inputs' content forward).
 *
 * When room is short the user's first request and newest words go first, then the newest lines. Facts:
 * what the user said about themselves and the work, worded about the user (`User prefers aisle seats`,
 * `Approval limit is 5,000 EUR`, `User chose: SK801`), and the answers' sentences that told the user a
 * value (`Invoice PO-7003 totals 1,240.00 EUR`); never error codes, generated ids, the memory and scope
 * tools' output or boilerplate. Each at most 200 characters, once, and none already in `knownFacts`.
 *
 * @example
 * const { summary, facts } = await patternSummarizer().summarize(items, { tier: 'episodic' })
 */
export function patternSummarizer({
  actionOf = defaultActionOf,
  maxActions = 12,
  maxChars = 1_200,
  maxScopeChars = 600,
  maxFacts = 10,
}: PatternSummarizerOptions = {}): Summarizer {
  for (const [name, value, least] of [
    ['maxActions', maxActions, 0],
    ['maxChars', maxChars, 200],
    ['maxScopeChars', maxScopeChars, 200],
    ['maxFacts', maxFacts, 0],
  ] as const) {
    if (!Number.isInteger(value) || value < least) {
      invalidOptions(
        `patternSummarizer(): ${name} must be a whole number of at least ${least} (got ${shownValue(value)}).`,
        { [name]: value },
      )
    }
  }
  return {
    name: 'pattern',
    async summarize(items: readonly Item[], options: SummarizeOptions): Promise<SummarizeResult> {
      options.signal?.throwIfAborted()
      // A summary shows at most one line per 4 characters: the sections keep no more lines than that.
      const keepLines = Math.ceil(Math.max(maxChars, maxScopeChars) / 3)
      const most = options.tier === 'scope' ? maxScopeChars : maxChars
      const reading = new PatternReading({
        actionOf,
        keepLines,
        maxFacts,
        // Past `most` characters of input the summary's limit is `most`: no need to count further.
        enoughChars: most,
        ...(options.knownFacts === undefined ? {} : { knownFacts: options.knownFacts }),
      })
      for (const item of items) reading.read(item)
      reading.finish()

      const headline = headlineOf(reading.calls, maxActions, options)
      const { user, others } = reading.identifiers
      // The user's identifiers first, then those of calls, results and answers; the newest first.
      const identifiers = [
        ...user.newestFirst(),
        ...others.newestFirst().filter((identifier) => !user.has(identifier)),
      ]
      const sections = {
        earlier: reading.earlier.lines(),
        user: reading.user.lines(),
        tools: reading.tools.lines(),
        assistant: reading.assistant.lines(),
      }
      const nothing =
        headline.length === 0 &&
        identifiers.length === 0 &&
        Object.values(sections).every((lines) => lines.length === 0)
      const limit = Math.min(most, Math.max(FLOOR_CHARS, reading.inputChars))
      const summary = layoutSummary(
        { headline: nothing ? 'Nothing happened.' : headline, identifiers, sections, totals: reading.totals },
        limit,
      )
      return { summary, facts: reading.facts.choose() }
    },
  }
}

/** Counts of tool calls and failures, and a scope's outcome, as one line of sentences. */
function headlineOf(calls: ToolCalls, maxActions: number, options: SummarizeOptions): string {
  // Most frequent first; ties by name, so the text is deterministic.
  const ranked = [...calls.actions].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  const shown = ranked.slice(0, maxActions).map(([label, count]) => `${count} ${label}`)
  const others = ranked.slice(maxActions).reduce((sum, [, count]) => sum + count, 0)
  if (others > 0) shown.push(`${others} other`)
  const total = ranked.reduce((sum, [, count]) => sum + count, 0)
  const sentences: string[] = []
  if (total > 0) sentences.push(`${plural(total, 'tool call')}: ${shown.join(', ')}.`)
  if (calls.failed > 0) sentences.push(`${plural(calls.failed, 'tool call')} failed.`)
  const scope = options.scope
  if (scope !== undefined) {
    const title = scope.title
      ? ` "${scope.title.length > 80 ? `${scope.title.slice(0, 79)}…` : scope.title}"`
      : ''
    sentences.push(`Outcome: ${scope.level}${title} ${outcomeText[scope.outcome]}.`)
  }
  return sentences.join(' ')
}
