import type { ContextMessage, Item, MessagePart } from '@strata-memory/core'
import type { Colours } from './output'

const MAX_TEXT = 240

/** The colour of a level: broad levels blue, then cyan, green, yellow, magenta, red. */
export function levelColour(
  colours: Colours,
  levels: readonly string[],
  level: string,
): (text: string) => string {
  const palette = [colours.blue, colours.cyan, colours.green, colours.yellow, colours.magenta, colours.red]
  const index = levels.indexOf(level)
  return index < 0 ? colours.white : (palette[index] ?? colours.white)
}

/** One part as a short line of text. */
export function partText(part: MessagePart): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text
    case 'file':
      return `[file ${part.mediaType}${part.filename ? ` ${part.filename}` : ''}]`
    case 'tool-call':
      return `→ ${part.toolName}(${JSON.stringify(part.input ?? null)}) [${part.toolCallId}]`
    case 'tool-result':
      return `← ${part.toolName}: ${typeof part.output === 'string' ? part.output : JSON.stringify(part.output)} [${part.toolCallId}]`
  }
}

/** An item's text: a message's parts, a transition's agent-facing message, a summary's or fact's text. */
export function itemText(item: Item): string {
  switch (item.type) {
    case 'message':
      return item.content.map(partText).join(' ')
    case 'transition':
      return item.agentFacingMessage
    default:
      return item.text
  }
}

/** What kind of item, in a word or two: `user`, `assistant`, `scope`, `transition`, `summary:episodic`, `fact`. */
export function itemKind(item: Item): string {
  if (item.type === 'message') return item.scope ? `scope:${item.role}` : item.role
  if (item.type === 'summary') return `summary:${item.tier}`
  return item.type
}

/** One line for an item: `#seq level kind text`, the level coloured. */
export function itemLine(item: Item, colours: Colours, levels: readonly string[], archived = false): string {
  const colour = levelColour(colours, levels, item.level)
  const title = item.type === 'message' && item.scope ? `${item.scope.title}: ` : ''
  return [
    colours.dim(`#${item.seq}`.padStart(7)),
    colour(item.level.padEnd(8)),
    colours.bold(itemKind(item).padEnd(17)),
    `${archived ? colours.dim('(archived) ') : ''}${shorten(title + itemText(item))}`,
  ].join(' ')
}

/** One block for a context message: its role (memory slots named) and its whole text. */
export function contextMessageBlock(message: ContextMessage, colours: Colours): string {
  const text = message.content.map(partText).join('\n')
  const slot = message.role === 'system' ? /^\[MEMORY:[A-Z-]+\]/.exec(text)?.[0] : undefined
  const label = slot !== undefined ? 'system · memory' : message.role
  const colour =
    slot !== undefined
      ? colours.magenta
      : message.role === 'system'
        ? colours.yellow
        : message.role === 'user'
          ? colours.green
          : message.role === 'tool'
            ? colours.cyan
            : colours.blue
  return `${colour(colours.bold(`[${label}]`))}\n${text}`
}

/** Text cut to one readable line. */
export function shorten(text: string, max = MAX_TEXT): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** Seqs as ranges: `[1, 2, 3, 7]` → `[{ fromSeq: 1, toSeq: 3 }, { fromSeq: 7, toSeq: 7 }]`. */
export function seqRanges(seqs: readonly number[]): { fromSeq: number; toSeq: number }[] {
  const ranges: { fromSeq: number; toSeq: number }[] = []
  for (const seq of seqs) {
    const last = ranges.at(-1)
    if (last !== undefined && seq === last.toSeq + 1) last.toSeq = seq
    else ranges.push({ fromSeq: seq, toSeq: seq })
  }
  return ranges
}
