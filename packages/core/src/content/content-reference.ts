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
}

/** Parts built for contexts from citations, to the citation each came from. */
const citedSources = new WeakMap<MessagePart, CitedSource>()

/** The memory id `memory_retrieve` answers with the whole content of a context's part, if it has one. */
export function memoryIdOf(part: MessagePart): string | undefined {
  return citedSources.get(part)?.reference.id ?? referenceOf(part)?.id
}

/**
 * A context's part in its brief form when it was built from a citation (restored or shown, so a
 * context cut to a budget can show it briefly); else the part. The same part gives the same object.
 */
export function briefPart(part: MessagePart): MessagePart {
  const source = citedSources.get(part)
  if (source === undefined) return part
  source.brief ??= shownCitation(source.citation, source.reference, true)
  return source.brief
}

const remember = (shown: MessagePart, citation: MessagePart, reference: ContentReference) => {
  citedSources.set(shown, { citation, reference })
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
  return remember(rebuiltPart(part, reference, data), part, reference)
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
