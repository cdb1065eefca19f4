import type { Item, JsonValue, MessagePart, UnsequencedItem } from '../items'
import { isSealed, type LogEntry } from '../items/sealed-item'
import type { ContentRecord } from '../stores'
import { briefCitation, citationFooter, selectPlugin, writeCitation } from './citation'
import type { CitationInput } from './content-plugin'
import { type ContentReference, citationPart, referenceOf } from './content-reference'
import { utf8Length } from './content-size'
import { type ContentSpaces, JSON_MEDIA_TYPE } from './content-spaces'

type MessageToAppend = Extract<UnsequencedItem, { type: 'message' }>

/**
 * The active log where a result's call is looked up: its entries, and a reader of one sealed entry's
 * item (see `SealedItem`), for a call an open sealed.
 */
export interface OffloadHistory {
  entries(): readonly LogEntry<string>[]
  read(seq: number): Promise<Item>
}

/**
 * The write side of the content channel: stores the large tool results (and attachments) of items
 * about to be appended, and puts a citation in each one's place.
 */
export class ContentOffload {
  readonly #spaces: ContentSpaces
  /** Citation parts already built for an appended part: a write retried after a conflict reuses them. */
  readonly #offloaded = new WeakMap<MessagePart, MessagePart>()

  constructor(spaces: ContentSpaces) {
    this.#spaces = spaces
  }

  /**
   * The items with their large parts stored and replaced by citations. `history` gives the active log,
   * where a result's call is looked up for plugins that read the call's input; it is asked only when a
   * result is stored.
   */
  async offload<I extends UnsequencedItem>(items: I[], history: OffloadHistory): Promise<I[]> {
    if (!this.#spaces.deps.options.offload) return items
    const out: I[] = []
    for (const item of items) {
      if (item.type !== 'message') {
        out.push(item)
        continue
      }
      // A list of its own only once a part is cited: most messages keep every part as it is.
      let content: MessagePart[] | undefined
      for (let index = 0; index < item.content.length; index++) {
        const part = item.content[index]!
        const cited = await this.#offloadPart(item, part, items, history)
        if (cited !== part) content ??= item.content.slice(0, index)
        content?.push(cited)
      }
      out.push(content === undefined ? item : ({ ...item, content } as I))
    }
    return out
  }

  async #offloadPart(
    item: MessageToAppend,
    part: MessagePart,
    batch: readonly UnsequencedItem[],
    history: OffloadHistory,
  ): Promise<MessagePart> {
    const done = this.#offloaded.get(part)
    if (done !== undefined) return done
    if (referenceOf(part) !== undefined) return part
    // What memory_retrieve read back is stored already: a result over the size is cut in a context
    // with a note that names the id it read, never stored again under a new one.
    if (part.type === 'tool-result' && part.toolName === 'memory_retrieve') return part
    const { options, summarizer, threadId, countPart } = this.#spaces.deps
    const candidate = offloadCandidate(item, part, options.attachments)
    if (candidate === undefined) return part
    const tool = part.type === 'tool-result' ? options.tools[part.toolName] : undefined
    const mode = tool?.offload ?? 'size'
    if (mode === 'never' || (mode === 'size' && candidate.size <= options.offloadAboveBytes)) return part

    const id = this.#spaces.newId()
    const input: CitationInput = { id, ...candidate }
    if (part.type === 'tool-result') {
      const call = await findCall(part.toolCallId, batch, history)
      if (call !== undefined) input.input = call
    }
    const plugin = selectPlugin(input, tool, options)
    const type = tool?.type ?? plugin.type?.(input) ?? input.type
    input.type = type
    const { body, by } = await writeCitation(input, plugin, {
      tool,
      options,
      summarizer,
      item: { ...item, content: [part] },
    })
    const reference: ContentReference = {
      id,
      kind: part.type === 'tool-result' ? 'tool-result' : part.type === 'file' ? 'file' : 'text',
    }
    if (candidate.json) reference.json = true
    reference.chars = candidate.data.length
    if (part.type === 'file') {
      reference.mediaType = part.mediaType
      if (part.filename !== undefined) reference.filename = part.filename
    }
    if (part.meta !== undefined) reference.meta = part.meta
    if (countPart !== undefined) reference.tokens = countPart(part)
    const label = plugin.label?.(input)
    if (label) reference.label = label
    reference.brief = briefCitation(body, label, id)
    const record: ContentRecord = {
      id,
      type,
      source: candidate.source,
      tags: [...(tool?.tags ?? []), ...(part.type === 'tool-result' ? [] : ['attachment'])],
      ts: item.ts,
      size: candidate.size,
      level: item.level,
      mediaType: candidate.mediaType,
      data: candidate.data,
      meta: {
        writer: threadId,
        itemId: item.id,
        kind: reference.kind,
        citedBy: by,
        ...(part.type === 'tool-result' ? { toolCallId: part.toolCallId } : {}),
        ...(candidate.filename === undefined ? {} : { filename: candidate.filename }),
      },
    }
    // The content is stored before the item that cites it, so a citation never points at nothing.
    await this.#spaces.put(this.#spaces.offloadSpace, record, 'offload')
    const cited = citationPart(part, `${body}\n${citationFooter(id)}`, reference)
    this.#offloaded.set(part, cited)
    return cited
  }
}

/** What a part would store, or undefined when the part is never offloaded. */
function offloadCandidate(
  item: MessageToAppend,
  part: MessagePart,
  attachments: boolean,
): Omit<CitationInput, 'id'> | undefined {
  if (part.type === 'tool-result') {
    const json = typeof part.output !== 'string'
    const data = json ? JSON.stringify(part.output) : (part.output as string)
    return {
      type: json ? 'json' : 'text',
      data,
      value: part.output,
      json,
      source: part.toolName,
      size: utf8Length(data),
      mediaType: json ? JSON_MEDIA_TYPE : 'text/plain',
    }
  }
  // Attachments: a user's own large text or inline file, never a scope's opening instructions.
  if (!attachments || item.role !== 'user' || item.scope !== undefined) return undefined
  if (part.type === 'text') {
    return {
      type: 'text',
      data: part.text,
      value: part.text,
      json: false,
      source: 'user',
      size: utf8Length(part.text),
      mediaType: 'text/plain',
    }
  }
  if (part.type === 'file') {
    const candidate: Omit<CitationInput, 'id'> = {
      type: 'file',
      data: part.data,
      value: part.data,
      json: false,
      source: 'user',
      size: utf8Length(part.data),
      mediaType: part.mediaType,
    }
    if (part.filename !== undefined) candidate.filename = part.filename
    return candidate
  }
  return undefined
}

/** The input of the tool call `toolCallId`: in the batch being appended, else the newest in the log. */
async function findCall(
  toolCallId: string,
  batch: readonly UnsequencedItem[],
  history: OffloadHistory,
): Promise<JsonValue | undefined> {
  /** The call in `item`, as `{ input }`, or undefined when it holds none. */
  const callIn = (item: LogEntry<string> | UnsequencedItem) => {
    if (item.type !== 'message' || item.role !== 'assistant') return undefined
    for (const part of item.content) {
      if (part.type === 'tool-call' && part.toolCallId === toolCallId) return { input: part.input }
    }
    return undefined
  }
  let found: { input: JsonValue } | undefined
  for (let index = batch.length - 1; index >= 0 && found === undefined; index--) found = callIn(batch[index]!)
  // A call of the batch without an input is looked for in the log too.
  if (found?.input !== undefined && found.input !== null) return found.input
  const entries = history.entries()
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index]!
    // A call an open sealed is read back, that item alone.
    if (isSealed(entry)) {
      if (entry.role === 'assistant' && entry.calls?.includes(toolCallId))
        return callIn(await history.read(entry.seq))?.input
    } else {
      const call = callIn(entry)
      if (call !== undefined) return call.input
    }
  }
  return undefined
}
