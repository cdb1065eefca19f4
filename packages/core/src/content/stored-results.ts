import { asNoteItem, STORED_RESULTS_TAG } from '../context/omitted-note'
import type { JsonValue, MessageItem, ToolResultPart } from '../items'
import type { ContentReference } from './content-reference'

/** At most this many grouped results are listed one by one in the note; older ones are counted. */
export const STORED_RESULTS_LISTED = 100

/** Characters of a call's input shown in a line of a result whose plugin gave no label. */
const INPUT_CHARS = 120

/**
 * One line of the note: what the result is (the first line of its brief citation: type, source,
 * length, and the plugin's label such as a page's URL and title) and its memory id. A result whose
 * plugin gave no label is named by its call's input instead, since the call leaves the context too.
 */
export function storedResultLine(
  part: ToolResultPart,
  reference: ContentReference,
  input: JsonValue | undefined,
): string {
  const head = reference.brief?.split('\n', 1)[0]?.trim() || `[stored result of ${part.toolName}]`
  let call = ''
  if (reference.label === undefined && input !== undefined) {
    const json = JSON.stringify(input)
    call = ` Call: ${json.length > INPUT_CHARS ? `${json.slice(0, INPUT_CHARS - 1)}…` : json}`
  }
  return `- ${head}${call} — ${reference.id}`
}

/**
 * The text that stands in the context for the tool results grouped out of it: how to reach them, then
 * one line each (newest {@link STORED_RESULTS_LISTED}), oldest first.
 */
export function storedResultsNote(lines: readonly string[]): string {
  const listed = lines.slice(-STORED_RESULTS_LISTED)
  const older = lines.length - listed.length
  return [
    lines.length === 1
      ? `${STORED_RESULTS_TAG} The oldest tool result of this conversation is left out of this context together with its call; it is kept whole in memory. Read it with memory_retrieve {"id":"mem_…"} (transform: full, excerpt, summary, first_n, last_n or filtered).`
      : `${STORED_RESULTS_TAG} The ${lines.length} oldest tool results of this conversation are left out of this context together with their calls; each is kept whole in memory. Read one with memory_retrieve {"id":"mem_…"} (transform: full, excerpt, summary, first_n, last_n or filtered); memory_query searches them all.`,
    ...(older > 0 ? [`- … ${older} older, found with memory_query`] : []),
    ...listed,
  ].join('\n')
}

/** The note as a user message in the place of the first grouped result's item. */
export function storedResultsItem<I extends MessageItem>(at: I, lines: readonly string[]): I {
  const { id, seq, ts, level, turnId } = at
  return asNoteItem({
    id,
    seq,
    ts,
    level,
    turnId,
    type: 'message',
    role: 'user',
    content: [{ type: 'text', text: storedResultsNote(lines) }],
  } as I)
}
