/** How many lines a section keeps by default: more than any summary of the default size can show. */
export const DEFAULT_KEPT_LINES = 400

/**
 * Lines of one section, each once, in order of first appearance, with how often each came. It keeps
 * the first line and the newest `keep` lines (a summary shows the first request and the newest words,
 * never more lines than fit in its size), so its memory and each line's cost stay bounded however many
 * items are read; `total` counts every distinct line seen.
 */
export class EntryList {
  readonly #entries = new Map<string, { count: number; order: number }>()
  readonly #keep: number
  #order = 0
  /** How many distinct lines were added (a line dropped and added again counts again). */
  total = 0

  constructor(keep = DEFAULT_KEPT_LINES) {
    this.#keep = Math.max(1, keep)
  }

  add(text: string) {
    if (text.length === 0) return
    const entry = this.#entries.get(text)
    if (entry !== undefined) {
      entry.count++
      return
    }
    this.#entries.set(text, { count: 1, order: this.#order++ })
    this.total++
    if (this.#entries.size > 2 * this.#keep + 1) this.#drop()
  }

  /** Drops all but the first line and the newest `keep`: amortised O(1) per line added. */
  #drop() {
    let index = 0
    const from = this.#entries.size - this.#keep
    for (const text of [...this.#entries.keys()]) {
      if (index > 0 && index < from) this.#entries.delete(text)
      index++
    }
  }

  /** The lines kept, a repeated one marked `(×N)`. */
  lines(): string[] {
    return [...this.#entries].map(([text, { count }]) => (count > 1 ? `${text} (×${count})` : text))
  }
}

/** The sections of a pattern summary, in the order they are written. */
export const SECTIONS = ['earlier', 'user', 'tools', 'assistant'] as const
export type SectionName = (typeof SECTIONS)[number]

const TITLES: Record<SectionName, string> = {
  earlier: 'Earlier',
  user: 'User',
  tools: 'Tools',
  assistant: 'Assistant',
}

/**
 * Each section's share of the room left after the headline and the identifiers; room a section does
 * not use goes to the others, in the order of {@link FILL_ORDER}.
 */
const SHARES: Record<SectionName, number> = { user: 0.4, tools: 0.3, earlier: 0.15, assistant: 0.15 }
const FILL_ORDER: readonly SectionName[] = ['user', 'earlier', 'tools', 'assistant']

/** The most identifiers the `Identifiers:` line lists, and its longest length. */
const MAX_IDENTIFIERS = 24
const IDENTIFIER_CHARS = 400

/** What a pattern summary is made of, before it is fitted into its size. */
export interface SummaryParts {
  /** Counts and outcome; always kept (cut when it alone is over the limit). */
  headline: string
  /** Identifiers and values, the most important first. */
  identifiers: readonly string[]
  /** Each section's lines, oldest first. */
  sections: Record<SectionName, readonly string[]>
  /** How many lines each section had, when more than it holds (the lines a bounded list dropped). */
  totals?: Partial<Record<SectionName, number>>
}

/**
 * Which lines of a section are kept first when room is short: the user's first request, then their
 * newest words; for the other sections the newest lines.
 */
function* priority(section: SectionName, count: number): Generator<number> {
  if (section === 'user' && count > 0) yield 0
  for (let index = count - 1; index >= (section === 'user' ? 1 : 0); index--) yield index
}

/**
 * Writes the summary within `limit` characters: the headline, an `Identifiers:` line, then one block
 * per section (`User:` and its lines as `- …`, oldest first). A section that could not keep every line
 * says how many it kept (`Tools (5 of 40):`). Linear in the number of lines.
 */
export function layoutSummary(
  { headline, identifiers, sections, totals = {} }: SummaryParts,
  limit: number,
): string {
  const head = headline.length > limit ? `${headline.slice(0, Math.max(0, limit - 1))}…` : headline
  // The identifiers line is written last, from what the kept lines do not already show.
  const reserved =
    identifiers.length === 0 ? 0 : Math.min(IDENTIFIER_CHARS, Math.floor((limit - head.length) / 4))
  let room = limit - head.length - reserved
  const chosen = Object.fromEntries(SECTIONS.map((name) => [name, new Set<number>()])) as Record<
    SectionName,
    Set<number>
  >
  /** Adds the lines of a section that fit in `allowance`, in priority order; returns what they cost. */
  const take = (name: SectionName, allowance: number): number => {
    const lines = sections[name]
    const all = Math.max(lines.length, totals[name] ?? 0)
    const header = `\n${TITLES[name]} (${all} of ${all}):`.length
    let used = 0
    for (const index of priority(name, lines.length)) {
      if (chosen[name].has(index)) continue
      const cost = lines[index]!.length + 3 + (chosen[name].size === 0 ? header : 0)
      // A line that does not fit is skipped: a later, shorter one may still fit.
      if (used + cost > allowance) continue
      chosen[name].add(index)
      used += cost
    }
    return used
  }
  // First each section within its share, then the rest of the room in order of importance.
  const shared = room
  for (const name of FILL_ORDER) room -= take(name, Math.floor(shared * SHARES[name]))
  for (const name of FILL_ORDER) room -= take(name, room)

  const shown: string[] = [head]
  for (const name of SECTIONS) for (const index of chosen[name]) shown.push(sections[name][index]!)
  const shownText = shown.join('\n')
  let identifierLine = ''
  let listed = 0
  const identifierRoom = Math.min(IDENTIFIER_CHARS, room + reserved)
  // Bounded: at most a few hundred candidates are looked at, each against at most `limit` characters.
  for (const identifier of identifiers.slice(0, MAX_IDENTIFIERS * 8)) {
    if (listed >= MAX_IDENTIFIERS) break
    if (shownText.includes(identifier)) continue
    const next = `${identifierLine.length === 0 ? '\nIdentifiers: ' : ', '}${identifier}`
    if (identifierLine.length + next.length > identifierRoom) continue
    identifierLine += next
    listed++
  }

  const blocks: string[] = [head + identifierLine]
  for (const name of SECTIONS) {
    const lines = sections[name]
    const kept = [...chosen[name]].sort((a, b) => a - b)
    if (kept.length === 0) continue
    const all = Math.max(lines.length, totals[name] ?? 0)
    const count = kept.length < all ? ` (${kept.length} of ${all})` : ''
    blocks.push(`${TITLES[name]}${count}:\n${kept.map((index) => `- ${lines[index]}`).join('\n')}`)
  }
  const text = blocks.join('\n').trim()
  return text.length > limit ? `${text.slice(0, Math.max(0, limit - 1))}…` : text
}

const HEADER = /^(Earlier|User|Tools|Assistant)(?: \(\d+ of \d+\))?:$/

/**
 * Reads a summary back into sections, so a summary of summaries carries their content forward: a
 * pattern summary's sections return to theirs and its headline to `earlier`; any other summary (an
 * LLM's `## Decisions` …) gives its lines to `earlier`, headings and `- none` left out.
 */
export function parseSummaryText(text: string): Record<SectionName, string[]> & { identifiers: string[] } {
  const parsed: Record<SectionName, string[]> & { identifiers: string[] } = {
    earlier: [],
    user: [],
    tools: [],
    assistant: [],
    identifiers: [],
  }
  let current: SectionName = 'earlier'
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    const header = HEADER.exec(line)
    if (header) {
      current = SECTIONS.find((name) => TITLES[name] === header[1])!
    } else if (line.startsWith('Identifiers: ')) {
      parsed.identifiers.push(...line.slice('Identifiers: '.length).split(', ').filter(Boolean))
    } else if (/^#{1,6}\s/.test(line) || /^[-*]\s*none\.?$/i.test(line) || line.length === 0) {
      // Headings and empty sections carry nothing.
    } else if (current !== 'earlier' && line.startsWith('- ')) {
      parsed[current].push(line.slice(2))
    } else {
      current = 'earlier'
      parsed.earlier.push(line.replace(/^[-*]\s+/, ''))
    }
  }
  return parsed
}
