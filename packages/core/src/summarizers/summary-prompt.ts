import { StrataError } from '../errors'
import type { Item, JsonValue, MessageItem, MessagePart, SummaryTier } from '../items'
import type { SummarizedFact, SummarizeOptions, SummarizeResult } from './summarizer'

/**
 * Tool results longer than this many characters are cut in the prompt and end with
 * `… [truncated N characters]`, unless `maxResultChars` says otherwise. Calls, messages and summaries
 * are never cut: they carry the identifiers a summary must keep.
 */
export const MAX_RESULT_CHARS = 1_000

/** How many facts the prompt asks for when `maxFacts` is not given. */
export const DEFAULT_MAX_FACTS = 8

/** The three headings of a summary an LLM writes, in order. */
export const SUMMARY_SECTIONS = ['Decisions', 'Identifiers', 'Open work'] as const

/** Options of {@link buildSummaryPrompt}: the summarizer's options plus the facts cap. */
export interface SummaryPromptOptions extends SummarizeOptions {
  /**
   * The most facts the model is asked for.
   * @default 8
   */
  maxFacts?: number
  /**
   * Tool results longer than this many characters are cut, with a `… [truncated N characters]` marker.
   * @default 1000 ({@link MAX_RESULT_CHARS})
   */
  maxResultChars?: number
}

/** The two halves of the prompt; each adapter sends them to its framework's model. */
export interface SummaryPrompt {
  system: string
  prompt: string
}

const tierText: Record<SummaryTier, string> = {
  scope:
    'a scope summary. The scope below has closed and its items leave the parent view: this summary stands in for them. Say what the scope achieved and how it ended.',
  'short-term':
    'a short-term summary. These items have left the immediate window; the agent keeps working on them, so keep the detail the next turns may need.',
  'long-term':
    'a long-term summary. Merge the previous summary and the items below into one durable record of the whole conversation; drop what no longer matters, never a decision or an identifier that still does.',
  episodic:
    'an episodic summary. These whole turns are archived and this summary replaces them in the context: say what happened in them, in order.',
}

const outcomeText = { complete: 'completed', cancelled: 'cancelled', aborted: 'aborted' } as const

function systemText(maxFacts: number): string {
  return `You summarize part of an AI agent's conversation log for its memory. Your summary replaces the original items in the agent's context: what you leave out is lost to the agent.

Rules:
- Use only what the log and the previous summary say. Never invent decisions, identifiers, results or facts; when something is uncertain, say so.
- Keep identifiers verbatim: ids, names, numbers, file paths, URLs, versions and error codes, exactly as written. Never shorten, round, translate or reformat them.
- Be brief: short bullet points, no preamble, no closing remarks.
- Answer in exactly this format, with these headings in this order; write "- none" under a heading with nothing to report:

## Decisions
- what was decided or done, and why
## Identifiers
- each id, name, number, path and URL that must survive verbatim
## Open work
- what is unfinished, pending or failed, and what comes next
\`\`\`json
{"facts": [{"text": "one self-contained statement", "tags": ["topic"], "confidence": 0.9}]}
\`\`\`

Facts: at most ${maxFacts} durable statements worth remembering after this summary (preferences, settled choices, stable properties of the work), each with short lowercase tags and a confidence from 0 to 1. Write {"facts": []} when there are none.`
}

/** Continuation lines are indented so every log entry starts with its `#seq`. */
const indent = (text: string) => text.replace(/\r\n?/g, '\n').replace(/\n/g, '\n  ')

const json = (value: JsonValue) => JSON.stringify(value) ?? 'null'

function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text
  return `${text.slice(0, limit)}… [truncated ${text.length - limit} characters]`
}

function renderPart(part: MessagePart, maxResultChars: number): string {
  switch (part.type) {
    case 'text':
      return part.text
    case 'reasoning':
      return `(reasoning) ${part.text}`
    case 'file':
      // The data may be megabytes of base64: the name and type are what a summary can use.
      return `[file ${part.mediaType}${part.filename ? ` ${part.filename}` : ''}]`
    case 'tool-call':
      return `${part.toolName}(${json(part.input)})`
    case 'tool-result': {
      const output = typeof part.output === 'string' ? part.output : json(part.output)
      return `${part.toolName} ${part.isError ? 'failed' : 'returned'}: ${truncate(output, maxResultChars)}`
    }
  }
}

function renderMessage(item: MessageItem, maxResultChars: number, out: string[]) {
  const head = `#${item.seq} ${item.role}`
  if (item.scope !== undefined) {
    const instructions = item.scope.instructions ? `\n${item.scope.instructions}` : ''
    out.push(`${head} opened ${item.level} scope "${item.scope.title}"${indent(instructions)}`)
    return
  }
  for (const part of item.content) out.push(`${head}: ${indent(renderPart(part, maxResultChars))}`)
}

/** One or more lines per item, oldest first; pure, so the same items give the same text. */
function renderItems(items: readonly Item[], maxResultChars: number): string {
  const lines: string[] = []
  for (const item of items) {
    switch (item.type) {
      case 'message':
        renderMessage(item, maxResultChars, lines)
        break
      case 'transition':
        lines.push(
          `#${item.seq} ${item.fromLevel} scope ended (${item.reason}): ${indent(item.agentFacingMessage)}`,
        )
        break
      case 'summary':
        lines.push(
          `#${item.seq} ${item.tier} summary of #${item.range.fromSeq}-#${item.range.toSeq}: ${indent(item.text)}`,
        )
        break
      case 'fact':
        lines.push(`#${item.seq} fact: ${indent(item.text)}`)
        break
    }
  }
  return lines.join('\n')
}

/**
 * Strata's prompt for LLM summarizers: a system text with the rules and the sectioned output format
 * (`## Decisions`, `## Identifiers`, `## Open work`, then a fenced json block of facts), and a prompt
 * with the tier, the scope, the previous summary and the items rendered one line per part. Tool calls
 * read `name(input json)`; tool results are cut after `maxResultChars` (1000) characters.
 * Deterministic: the same items and options give the same text. Parse the answer with
 * {@link parseSummaryResponse}.
 *
 * @example
 * const { system, prompt } = buildSummaryPrompt(items, { tier: 'short-term', previousSummary })
 * const result = parseSummaryResponse(await model.complete({ system, prompt }))
 */
export function buildSummaryPrompt(items: readonly Item[], options: SummaryPromptOptions): SummaryPrompt {
  const {
    tier,
    previousSummary,
    scope,
    knownFacts = [],
    maxFacts = DEFAULT_MAX_FACTS,
    maxResultChars = MAX_RESULT_CHARS,
  } = options
  const parts: string[] = [`Write ${tierText[tier]}`]
  if (scope !== undefined) {
    const title = scope.title ? ` "${scope.title}"` : ''
    parts.push(`Scope: ${scope.level}${title}, ${outcomeText[scope.outcome]}.`)
  }
  if (previousSummary !== undefined && previousSummary.trim().length > 0) {
    parts.push(
      `Previous summary (build on it; keep what still holds):\n<previous-summary>\n${previousSummary.trim()}\n</previous-summary>`,
    )
  }
  const known = knownFacts.map((fact) => fact.trim()).filter((fact) => fact.length > 0)
  if (known.length > 0) {
    parts.push(
      `Facts already in memory (do not list them again as facts; a fact that changed is a new fact):\n<known-facts>\n${known.map((fact) => `- ${indent(fact)}`).join('\n')}\n</known-facts>`,
    )
  }
  const count = `${items.length} item${items.length === 1 ? '' : 's'}`
  parts.push(
    `Log (${count}, oldest first; #n is the item's sequence number; tool results longer than ${maxResultChars} characters are truncated):\n<log>\n${renderItems(items, maxResultChars)}\n</log>`,
  )
  parts.push('Write the summary now, in the required format.')
  return { system: systemText(maxFacts), prompt: parts.join('\n\n') }
}

const headingPattern =
  /^\s*(?:#{1,6}\s*)?(?:\*\*)?\s*(decisions|identifiers|open work)\s*:?\s*(?:\*\*)?\s*:?\s*$/i
const otherHeadingPattern = /^\s*#{1,6}\s/
const fencePattern = /```[^\n`]*\n([\s\S]*?)```/g

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A fact entry, or undefined when its shape is wrong (it is dropped, the others are kept). */
function toFact(entry: unknown): SummarizedFact | undefined {
  if (!isRecord(entry) || typeof entry.text !== 'string' || entry.text.trim().length === 0) return undefined
  const fact: SummarizedFact = { text: entry.text.trim() }
  if (entry.tags !== undefined) {
    if (!Array.isArray(entry.tags)) return undefined
    fact.tags = entry.tags.filter((tag): tag is string => typeof tag === 'string' && tag.trim().length > 0)
    fact.tags = fact.tags.map((tag) => tag.trim())
  }
  if (entry.confidence !== undefined) {
    if (typeof entry.confidence !== 'number' || !Number.isFinite(entry.confidence)) return undefined
    fact.confidence = Math.min(1, Math.max(0, entry.confidence))
  }
  return fact
}

/** The facts of a fenced block, or undefined when the block is not a facts block. */
function factsOf(block: string): SummarizedFact[] | undefined {
  let value: unknown
  try {
    value = JSON.parse(block)
  } catch {
    return undefined
  }
  const entries = Array.isArray(value) ? value : isRecord(value) ? value.facts : undefined
  if (!Array.isArray(entries)) return undefined
  return entries.map(toFact).filter((fact): fact is SummarizedFact => fact !== undefined)
}

/** Finds the facts block: the last fenced block that parses as facts, else the last one labelled json. */
function findFactsBlock(text: string): { start: number; end: number; facts: SummarizedFact[] } | undefined {
  let labelled: { start: number; end: number } | undefined
  let parsed: { start: number; end: number; facts: SummarizedFact[] } | undefined
  for (const match of text.matchAll(fencePattern)) {
    const start = match.index
    const end = start + match[0].length
    const facts = factsOf(match[1]!)
    if (facts !== undefined) parsed = { start, end, facts }
    else if (/^```\s*json\b/i.test(match[0])) labelled = { start, end }
  }
  // A malformed block labelled json still leaves the summary: its facts are dropped, not its text.
  if (parsed !== undefined && (labelled === undefined || parsed.start > labelled.start)) return parsed
  return labelled === undefined ? undefined : { ...labelled, facts: [] }
}

/** The recognised sections, their lines joined; text outside them is left out. */
function sectionsOf(text: string): Map<(typeof SUMMARY_SECTIONS)[number], string[]> {
  const sections = new Map<(typeof SUMMARY_SECTIONS)[number], string[]>()
  let current: string[] | undefined
  for (const line of text.split('\n')) {
    const heading = headingPattern.exec(line)
    if (heading) {
      const name = SUMMARY_SECTIONS.find((section) => section.toLowerCase() === heading[1]!.toLowerCase())!
      current = sections.get(name) ?? []
      sections.set(name, current)
    } else if (otherHeadingPattern.test(line)) {
      current = undefined
    } else {
      current?.push(line)
    }
  }
  return sections
}

/** Options of {@link parseSummaryResponse}. */
export interface ParseSummaryOptions {
  /**
   * Facts past this many are dropped.
   * @default no limit
   */
  maxFacts?: number
}

/**
 * Reads a model's answer to {@link buildSummaryPrompt}, tolerantly: the `Decisions`, `Identifiers` and
 * `Open work` sections become the summary (headings kept, in order; prose around them and the json
 * block left out), and the json block's facts are validated (invalid entries dropped, confidence
 * clamped to 0..1). An answer with no section but some text is kept whole as the summary; malformed
 * facts leave the summary intact. Throws `STRATA_SUMMARIZER_FAILED` when there is nothing usable.
 */
export function parseSummaryResponse(text: string, options: ParseSummaryOptions = {}): SummarizeResult {
  const normalized = String(text ?? '').replace(/\r\n?/g, '\n')
  const block = findFactsBlock(normalized)
  let facts = block?.facts ?? []
  if (options.maxFacts !== undefined) facts = facts.slice(0, Math.max(0, options.maxFacts))
  let body = normalized
  if (block !== undefined) {
    const before = normalized.slice(0, block.start)
    const after = normalized.slice(block.end)
    // Prose after the facts block ("Let me know if…") is dropped unless it carries sections.
    const afterHasSections = sectionsOf(after).size > 0
    body = afterHasSections || sectionsOf(before).size === 0 ? `${before}\n${after}` : before
  }
  const sections = sectionsOf(body)
  if (sections.size > 0) {
    const summary = SUMMARY_SECTIONS.filter((name) => sections.has(name))
      .map((name) => {
        const content = sections.get(name)!.join('\n').trim()
        return `## ${name}\n${content.length > 0 ? content : '- none'}`
      })
      .join('\n\n')
    return { summary, facts }
  }
  const plain = body.trim()
  if (!/[\p{L}\p{N}]/u.test(plain)) {
    throw new StrataError({
      code: 'STRATA_SUMMARIZER_FAILED',
      message: `The model's summary has no Decisions, Identifiers or Open work section and no usable text (got ${JSON.stringify(normalized.slice(0, 80))}). Check the model and its output limit; the log was left untouched.`,
      details: { response: normalized.slice(0, 500) },
    })
  }
  return { summary: plain, facts }
}
