import type { JsonValue } from '../items'
import type { JsonScan } from './json-scan'
import { clip, findIdentifiers, jsonGist, READ_CHARS } from './text-gist'

/** Takes the identifiers of one part (`found`), and says when it has taken all it wants (`full`: the rest need not be read). */
export interface IdentifierTaker {
  found: (identifier: string) => void
  full: () => boolean
}

/**
 * Gives `taker` the identifiers in the strings among the scalars of `scan` (the first
 * {@link JsonScan.gistLeaves} of them when `gistOnly`, otherwise the whole walk's), at most
 * {@link READ_CHARS} characters of them in all, until it is full.
 */
export function leafIdentifiers(scan: JsonScan, gistOnly: boolean, taker: IdentifierTaker) {
  let budget = READ_CHARS
  for (let index = 0; budget > 0 && (gistOnly ? index < scan.gistLeaves : scan.leaf(index)); index++) {
    if (taker.full()) break
    const value = scan.values[index]
    if (typeof value !== 'string') continue
    findIdentifiers(value, taker.found, taker.full, Math.min(budget, READ_CHARS))
    budget -= value.length
  }
}

/** One call's line: its head, its result's gist when it came, and the call's id while it waits. */
interface ToolLine {
  head: string
  outcome?: string
  id?: string
}

/** Longest line of one tool call with its result, in characters. */
const TOOL_LINE_CHARS = 200

/**
 * The tool calls the pattern summarizer saw: counted by action for the headline, and one line each,
 * `name(argument gist) → result gist` (`failed: …` for an error), in the order of the calls; a result
 * whose call was not among the items gets a line of its own.
 */
export class ToolCalls {
  /** Calls by action label. */
  readonly actions = new Map<string, number>()
  /** Results marked as errors. */
  failed = 0
  readonly #actionOf: (toolName: string, input: JsonValue) => string
  /** Calls still waiting for their result: their line, by call id. */
  readonly #open = new Map<string, ToolLine>()
  #lines: ToolLine[] = []
  readonly #keep: number
  /** How many lines there were, the dropped ones included. */
  total = 0

  /** `keep`: how many of the newest lines are kept (a summary shows no more). */
  constructor(actionOf: (toolName: string, input: JsonValue) => string, keep = 400) {
    this.#actionOf = actionOf
    this.#keep = Math.max(1, keep)
  }

  #push(line: ToolLine) {
    this.#lines.push(line)
    this.total++
    if (this.#lines.length <= 2 * this.#keep) return
    // The oldest lines go in bulk (amortised O(1) a line); a result for a dropped call gets its own line.
    const dropped = this.#lines.length - this.#keep
    for (const old of this.#lines.slice(0, dropped)) if (old.id !== undefined) this.#open.delete(old.id)
    this.#lines = this.#lines.slice(dropped)
  }

  /**
   * A call (`scan`: its input walked); identifiers in its arguments' strings (at most
   * {@link READ_CHARS} characters) go to `taker`.
   */
  call(toolCallId: string, toolName: string, input: JsonValue, scan: JsonScan, taker: IdentifierTaker) {
    const label = clip(this.#actionOf(toolName, input), 40)
    this.actions.set(label, (this.actions.get(label) ?? 0) + 1)
    const empty = input === null || (typeof input === 'object' && Object.keys(input).length === 0)
    const head = `${clip(toolName, 40)}(${empty ? '' : jsonGist(input, { max: 100, separator: '=' }, scan)})`
    const line: ToolLine = { head, id: toolCallId }
    this.#open.set(toolCallId, line)
    this.#push(line)
    leafIdentifiers(scan, true, taker)
  }

  /** A result (`scan`: its output walked): its gist joins its call's line. */
  result(toolCallId: string, toolName: string, output: JsonValue, isError: boolean, scan: JsonScan) {
    if (isError) this.failed++
    const gist = jsonGist(output, { max: 120, separator: ': ' }, scan)
    const outcome = isError ? ` failed: ${gist}` : gist.length > 0 ? ` → ${gist}` : ''
    const line = this.#open.get(toolCallId)
    if (line === undefined) {
      this.#push({ head: clip(toolName, 40), outcome })
      return
    }
    this.#open.delete(toolCallId)
    delete line.id
    line.outcome = outcome
  }

  /** How many lines {@link lines} gives. */
  get kept(): number {
    return this.#lines.length
  }

  /** One line per call, in order (the newest `keep`). */
  lines(): string[] {
    return this.#lines.map((line) => clip(line.head + (line.outcome ?? ''), TOOL_LINE_CHARS))
  }
}
