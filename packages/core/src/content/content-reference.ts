import type { PartSource } from '../context/cut-part'
import type { JsonObject, JsonValue, MessagePart } from '../items'

/** The key of a part's `meta` that marks it as a citation of stored content. */
export const CONTENT_META_KEY = 'strataContent'

/** What a citation part records about the part it stands for, so the first context can restore it. */
export interface ContentReference {
  /** The memory id. */
  id: string
  /** The kind of part that was stored. */
  kind: 'tool-result' | 'text' | 'file'
  /** A tool result whose output was a JSON value other than a string (stored serialised). */
  json?: boolean
  /** A file attachment's media type and filename. */
  mediaType?: string
  filename?: string
  /** The stored part's own `meta`, restored with it. */
  meta?: JsonObject
  /** The stored part's tokens as the thread counted them, so totals count what was appended. */
  tokens?: number
  /** The one-line citation contexts show once the result is `briefAfterTurns` turns old. */
  brief?: string
  /** The plugin's label (e.g. a page's URL and title), when it gave one. */
  label?: string
  /** The stored data's length in characters (citations written before it was kept leave it out). */
  chars?: number
}

/** The content reference of a part, when the part is a citation. */
export function referenceOf(part: MessagePart): ContentReference | undefined {
  const value = part.meta?.[CONTENT_META_KEY]
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const reference = value as unknown as ContentReference
  return typeof reference.id === 'string' ? reference : undefined
}

/** The citation part that stands in the log for a stored part. */
export function citationPart(part: MessagePart, citation: string, reference: ContentReference): MessagePart {
  const meta: JsonObject = { [CONTENT_META_KEY]: reference as unknown as JsonValue }
  if (part.type === 'tool-result') {
    const cited: MessagePart = { ...part, output: citation, meta }
    return cited
  }
  return { type: 'text', text: citation, meta }
}

/**
 * The citation a part shown in a context stands for: the log's citation part and its reference, and
 * its brief form once a context asked for it.
 */
interface CitedSource {
  citation: MessagePart
  reference: ContentReference
  brief?: MessagePart
  /** The part shows the stored content whole (restored), not a citation of it. */
  whole?: boolean
}

/** Parts built for contexts from citations, to the citation each came from. */
const citedSources = new WeakMap<MessagePart, CitedSource>()

/**
 * A context's part in its brief form when it shows a citation (so a context cut to a budget can show
 * it briefly); else the part. A part restored whole (the model has not answered it yet) is not
 * briefed: a cut of it shows its first words, which say more than the citation's line. The same part
 * gives the same object.
 */
export function briefPart(part: MessagePart): MessagePart {
  const source = citedSources.get(part)
  if (source === undefined || source.whole === true) return part
  source.brief ??= shownCitation(source.citation, source.reference, true)
  return source.brief
}

const remember = (shown: MessagePart, citation: MessagePart, reference: ContentReference, whole = false) => {
  citedSources.set(shown, { citation, reference, ...(whole ? { whole } : {}) })
  return shown
}

/**
 * A citation part as a context shows it: in its brief form when asked and it has one, and with the
 * part's own `meta` instead of the content reference (Strata's bookkeeping is not sent to models).
 */
export function shownCitation(part: MessagePart, reference: ContentReference, brief: boolean): MessagePart {
  const { meta: _reference, ...rest } = part
  const shown = { ...rest, ...(reference.meta === undefined ? {} : { meta: reference.meta }) } as MessagePart
  if (!brief || reference.brief === undefined) return remember(shown, part, reference)
  if (shown.type === 'tool-result') return remember({ ...shown, output: reference.brief }, part, reference)
  if (shown.type === 'text') return remember({ ...shown, text: reference.brief }, part, reference)
  return remember(shown, part, reference)
}

/** The stored part rebuilt from its citation and the stored data: exactly what was appended. */
export function restoredPart(part: MessagePart, reference: ContentReference, data: string): MessagePart {
  return remember(rebuiltPart(part, reference, data), part, reference, true)
}

function rebuiltPart(part: MessagePart, reference: ContentReference, data: string): MessagePart {
  const meta = reference.meta === undefined ? {} : { meta: reference.meta }
  if (reference.kind === 'tool-result' && part.type === 'tool-result') {
    const { meta: _citationMeta, ...rest } = part
    return { ...rest, output: reference.json ? (JSON.parse(data) as JsonValue) : data, ...meta }
  }
  if (reference.kind === 'file') {
    return {
      type: 'file',
      mediaType: reference.mediaType ?? 'application/octet-stream',
      data,
      ...(reference.filename === undefined ? {} : { filename: reference.filename }),
      ...meta,
    }
  }
  return { type: 'text', text: data, ...meta }
}

/** Between an item id and a part's index in the id of one part of a message: `<item id>#<index>`. */
export const PART_ID_SEPARATOR = '#'

/**
 * Where the whole of a context's part is kept: its memory id when it shows or cites stored content;
 * the id a `memory_retrieve` result read (a retrieved result is never stored again); else the id of
 * the part in `item`, the log's message it belongs to (the item's id, or `<item id>#<index>` in a
 * message of several parts).
 */
export function partSource(
  part: MessagePart,
  item: { id: string; content?: readonly MessagePart[] },
): PartSource {
  const cited = citedSources.get(part)
  const reference = cited?.reference ?? referenceOf(part)
  if (reference !== undefined) {
    if (cited?.whole === true) return { id: reference.id, shows: 'content' }
    return {
      id: reference.id,
      shows: 'citation',
      ...(reference.chars === undefined ? {} : { chars: reference.chars }),
    }
  }
  const retrieved = retrievedSource(part)
  if (retrieved !== undefined) return { ...retrieved, shows: 'retrieved' }
  return { id: partId(part, item), shows: 'content' }
}

/** The id of one part of a message: the item's id when it is the only part, else `<item id>#<index>`. */
function partId(part: MessagePart, item: { id: string; content?: readonly MessagePart[] }): string {
  const index = item.content?.indexOf(part) ?? -1
  return index < 0 || item.content!.length <= 1 ? item.id : `${item.id}${PART_ID_SEPARATOR}${index}`
}

/**
 * The id a `memory_retrieve` result read, from its output (an object, or an adapter's JSON string),
 * and the original's length when the result holds it whole (`truncated: false`).
 */
function retrievedSource(part: MessagePart): { id: string; chars?: number } | undefined {
  if (part.type !== 'tool-result' || part.toolName !== 'memory_retrieve' || part.isError === true)
    return undefined
  let output: unknown = part.output
  if (typeof output === 'string') {
    if (!output.startsWith('{')) return undefined
    try {
      output = JSON.parse(output)
    } catch {
      return undefined
    }
  }
  if (typeof output !== 'object' || output === null) return undefined
  // The AI SDK's typed output wraps the value: `{ type: 'json', value }`.
  const record = output as Record<string, unknown>
  const value =
    record.type === 'json' && typeof record.value === 'object'
      ? (record.value as Record<string, unknown>)
      : record
  if (typeof value?.id !== 'string' || value.error !== undefined) return undefined
  const whole = value.truncated === false && typeof value.content === 'string'
  return whole ? { id: value.id, chars: (value.content as string).length } : { id: value.id }
}
