import type { Item } from '../items'

/** One recent turn as the snapshot shows it. */
export interface SnapshotTurn {
  /** `turn_0012` (shown as `Turn 12:`); any other id is shown as it is. */
  turnId: string
  user?: string
  assistant?: string
}

/** Input of {@link renderSnapshot}; every list oldest first. */
export interface SnapshotInput {
  /** Episodic summaries; the newest {@link SNAPSHOT_LIMITS}`.episodic` are shown. */
  episodic: readonly string[]
  /** Semantic facts; the newest {@link SNAPSHOT_LIMITS}`.facts` are shown. */
  facts: readonly string[]
  /** The raw tail, turn by turn. */
  recentTurns: readonly SnapshotTurn[]
}

/** How many episodic summaries and facts a snapshot shows (DESIGN: 3 and 20). */
export const SNAPSHOT_LIMITS = { episodic: 3, facts: 20 } as const

/**
 * Renders the budget-compaction snapshot in the DESIGN's text format: `[MEMORY:EPISODIC]` with
 * numbered entries, `[MEMORY:SEMANTIC]` with `- ` entries, `[RECENT TURNS]` with `Turn N:` blocks.
 * Shows the newest 3 episodic summaries and 20 facts, oldest first; leaves out empty sections and
 * missing user or assistant lines; indents the continuation lines of multi-line text under their
 * entry. Lines end with `\n` except the last. Deterministic: the same input gives the same text.
 *
 * @example
 * renderSnapshot({ episodic: ['Set up the repo.'], facts: ['Uses pnpm'], recentTurns: [] })
 * // '[MEMORY:EPISODIC]\n1) Set up the repo.\n[MEMORY:SEMANTIC]\n- Uses pnpm'
 */
export function renderSnapshot(input: SnapshotInput): string {
  const lines: string[] = []
  const episodic = input.episodic.slice(-SNAPSHOT_LIMITS.episodic)
  if (episodic.length > 0) {
    lines.push('[MEMORY:EPISODIC]')
    episodic.forEach((text, index) => {
      lines.push(entry(`${index + 1}) `, text))
    })
  }
  const facts = input.facts.slice(-SNAPSHOT_LIMITS.facts)
  if (facts.length > 0) {
    lines.push('[MEMORY:SEMANTIC]')
    for (const text of facts) lines.push(entry('- ', text))
  }
  if (input.recentTurns.length > 0) {
    lines.push('[RECENT TURNS]')
    for (const turn of input.recentTurns) {
      lines.push(`${turnLabel(turn.turnId)}:`)
      if (turn.user !== undefined) lines.push(entry('  User: ', turn.user, '    '))
      if (turn.assistant !== undefined) lines.push(entry('  Assistant: ', turn.assistant, '    '))
    }
  }
  return lines.join('\n')
}

/** `prefix` + text, its later lines indented so they read as part of the entry. */
function entry(prefix: string, text: string, indent = ' '.repeat(prefix.length)): string {
  return `${prefix}${text.trim().replace(/\r\n?|\n/g, `\n${indent}`)}`
}

function turnLabel(turnId: string): string {
  const match = /^turn_(\d+)$/.exec(turnId)
  return match ? `Turn ${Number(match[1])}` : `Turn ${turnId}`
}

/**
 * The last `count` turns of `items` as snapshot turns: per turn, the text of its user messages and of
 * its assistant messages (a tool call shows as `[tool_name]`), each joined by a blank line. Items
 * other than messages, and turns with neither a user nor an assistant line, are left out.
 *
 * @example
 * renderSnapshot({ episodic, facts, recentTurns: snapshotTurns(thread.items(), 5) })
 */
export function snapshotTurns(items: readonly Item[], count: number): SnapshotTurn[] {
  const turns = new Map<string, { user: string[]; assistant: string[] }>()
  for (const item of items) {
    if (item.type !== 'message' || (item.role !== 'user' && item.role !== 'assistant')) continue
    let turn = turns.get(item.turnId)
    if (turn === undefined) {
      turn = { user: [], assistant: [] }
      turns.set(item.turnId, turn)
    }
    const text = item.content
      .flatMap((part) =>
        part.type === 'text' ? [part.text.trim()] : part.type === 'tool-call' ? [`[${part.toolName}]`] : [],
      )
      .filter((line) => line.length > 0)
      .join(' ')
    if (text.length > 0) turn[item.role].push(text)
  }
  const result: SnapshotTurn[] = []
  for (const [turnId, { user, assistant }] of turns) {
    if (user.length === 0 && assistant.length === 0) continue
    result.push({
      turnId,
      ...(user.length > 0 ? { user: user.join('\n\n') } : {}),
      ...(assistant.length > 0 ? { assistant: assistant.join('\n\n') } : {}),
    })
  }
  return count > 0 ? result.slice(-count) : []
}
