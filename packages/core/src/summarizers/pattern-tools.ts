import type { JsonValue } from '../items'
import { clip, findIdentifiers, jsonGist, jsonLeaves, READ_CHARS } from './text-gist'

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
  /** Calls still waiting for their result: the index of their line, by call id. */
  readonly #open = new Map<string, number>()
  readonly #lines: { head: string; outcome?: string }[] = []

  constructor(actionOf: (toolName: string, input: JsonValue) => string) {
    this.#actionOf = actionOf
  }

  /** A call; identifiers in its arguments' strings (at most {@link READ_CHARS} characters) go to `found`. */
  call(toolCallId: string, toolName: string, input: JsonValue, found: (identifier: string) => void) {
    const label = clip(this.#actionOf(toolName, input), 40)
    this.actions.set(label, (this.actions.get(label) ?? 0) + 1)
    const empty = input === null || (typeof input === 'object' && Object.keys(input).length === 0)
    const head = `${clip(toolName, 40)}(${empty ? '' : jsonGist(input, { max: 100, separator: '=' })})`
    this.#open.set(toolCallId, this.#lines.length)
    this.#lines.push({ head })
    let budget = READ_CHARS
    for (const leaf of jsonLeaves(input, 64)) {
      if (typeof leaf.value !== 'string' || budget <= 0) continue
      findIdentifiers(leaf.value.slice(0, budget), found)
      budget -= leaf.value.length
    }
  }

  /** A result: its gist joins its call's line. */
  result(toolCallId: string, toolName: string, output: JsonValue, isError: boolean) {
    if (isError) this.failed++
    const gist = jsonGist(output, { max: 120, separator: ': ' })
    const outcome = isError ? ` failed: ${gist}` : gist.length > 0 ? ` → ${gist}` : ''
    const index = this.#open.get(toolCallId)
    if (index === undefined) {
      this.#lines.push({ head: clip(toolName, 40), outcome })
      return
    }
    this.#open.delete(toolCallId)
    this.#lines[index]!.outcome = outcome
  }

  /** One line per call, in order. */
  lines(): string[] {
    return this.#lines.map((line) => clip(line.head + (line.outcome ?? ''), TOOL_LINE_CHARS))
  }
}
