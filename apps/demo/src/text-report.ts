import type { ContextMessage, MessagePart } from '@strata-memory/core'
import type { ScenarioResult, Stage } from './scenario.ts'

/** Options of {@link textReport}. */
export interface TextReportOptions {
  /**
   * Show every message; otherwise long runs of tool calls are shortened to their first and last pairs.
   * @default false
   */
  full?: boolean
  /**
   * Characters of each message shown.
   * @default 100
   */
  width?: number
}

/** Tool call/result pairs kept at each end of a long run when the report is not `full`. */
const PAIRS_KEPT = 3

const number = (value: number) => value.toLocaleString('en-US')
const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`

const clip = (text: string, width: number) => (text.length <= width ? text : `${text.slice(0, width - 1)}…`)

function partText(part: MessagePart): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text
    case 'file':
      return `[file ${part.mediaType}]`
    case 'tool-call':
      return `${part.toolName}(${JSON.stringify(part.input)})`
    case 'tool-result':
      return `${part.isError ? '[error] ' : ''}${part.toolName} → ${JSON.stringify(part.output)}`
  }
}

/** One line per message: the role, then the start of its content on one line. */
export function messageLine(message: ContextMessage, width = 100): string {
  const text = message.content
    .map(partText)
    .join(' ')
    .replaceAll(/\s*\n\s*/g, ' ⏎ ')
  return `  ${message.role.padEnd(10)}${clip(text, width)}`
}

const isToolPair = (messages: readonly ContextMessage[], index: number) =>
  messages[index]?.role === 'assistant' &&
  messages[index]?.content.every((part) => part.type === 'tool-call') === true &&
  messages[index + 1]?.role === 'tool'

/** The message lines of a context, with runs of more than 2 × PAIRS_KEPT tool pairs shortened. */
function messageLines(
  messages: readonly ContextMessage[],
  { full = false, width = 100 }: TextReportOptions,
): string[] {
  const lines: string[] = []
  let index = 0
  while (index < messages.length) {
    let end = index
    while (isToolPair(messages, end)) end += 2
    const pairs = (end - index) / 2
    if (full || pairs <= 2 * PAIRS_KEPT) {
      for (const message of messages.slice(index, Math.max(end, index + 1)))
        lines.push(messageLine(message, width))
      index = Math.max(end, index + 1)
      continue
    }
    for (const message of messages.slice(index, index + 2 * PAIRS_KEPT))
      lines.push(messageLine(message, width))
    lines.push(
      `  ${''.padEnd(10)}… ${pairs - 2 * PAIRS_KEPT} more tool calls and results (--full shows them) …`,
    )
    for (const message of messages.slice(end - 2 * PAIRS_KEPT, end)) lines.push(messageLine(message, width))
    index = end
  }
  return lines
}

function stageSection(stage: Stage, options: TextReportOptions): string[] {
  const { stats } = stage
  const heading = `── ${stage.title} `
  return [
    '',
    `${heading.padEnd(72, '─')} level: ${stage.level}`,
    `What the model sees (${stats.messages} messages):`,
    ...messageLines(stage.messages, options),
    `Tokens: ${number(stats.contextTokens)} sent of ${number(stats.totalTokens)} in the thread, ` +
      `${number(stats.savedTokens)} saved (${percent(stats.savedRatio)}). ` +
      `Items: ${stats.itemsVisible} of ${stats.itemsTotal} in view.`,
  ]
}

/** A plain table: the first column left-aligned, the others right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  )
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd()
  return [line(header), widths.map((width) => '─'.repeat(width)).join('  '), ...rows.map(line)]
}

/** The human-readable report of a run: each stage's context, the closed scopes, and a table of savings. */
export function textReport(result: ScenarioResult, options: TextReportOptions = {}): string {
  const lines = [
    'Strata demo: an agent builds a bakery landing page on a canvas.',
    'Offline: a scripted model decides every step from the context Strata gives it; no network, no LLM.',
  ]
  const closedLine = (scope: ScenarioResult['closedScopes'][number]) =>
    `Closed: ${scope.userFacingMessage ?? scope.title} Summary: ${scope.summary.replaceAll('\n', ' ')}`
  let closed = 0
  for (const stage of result.stages) {
    // The project closes between the last project stage and the global one.
    if (stage.level === 'global') {
      for (const scope of result.closedScopes.slice(closed)) lines.push('', closedLine(scope))
      closed = result.closedScopes.length
    }
    lines.push(...stageSection(stage, options))
    // The scope closed just before a project stage is the task that stage follows.
    const scope = stage.id.startsWith('project-after-task-') ? result.closedScopes[closed++] : undefined
    if (scope !== undefined) lines.push(closedLine(scope))
  }

  lines.push('', 'What each level costs', '')
  lines.push(
    ...table(
      ['stage', 'level', 'items in view', 'messages', 'context tokens', 'thread tokens', 'saved', 'saved %'],
      result.stages.map(({ id, stats }) => [
        id,
        stats.level,
        `${stats.itemsVisible} / ${stats.itemsTotal}`,
        String(stats.messages),
        number(stats.contextTokens),
        number(stats.totalTokens),
        number(stats.savedTokens),
        percent(stats.savedRatio),
      ]),
    ),
  )
  lines.push(
    '',
    `${result.toolCalls} tool calls, ${result.shapes} shapes on the canvas. Tokens counted by: ${result.stages[0]?.stats.tokenCounter}.`,
  )
  return `${lines.join('\n')}\n`
}
