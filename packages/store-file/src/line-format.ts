import type { Item, UnsequencedItem } from '@strata-memory/core'

/**
 * One item as one line of `raw_traces.jsonl`, `raw_traces_archive.jsonl`, `episodic.jsonl` and
 * `semantic.jsonl`.
 *
 * The line is `{"seq":N, …the item's own keys in order…}` with two changes that make the files
 * grep-able by the field names people expect:
 * - `turnId` is written as `turn_id`, in the same position;
 * - an item other than a message gets a trailing `content` string: its text (a transition's
 *   agent-facing message, a summary's or a fact's text), so every line has `seq`, `id`, `ts`,
 *   `turn_id`, `type` and `content`.
 *
 * Lines of an append of several items also end with `batch_end`: the seq of the batch's last item, so
 * that a crash that persisted only part of a batch is recognised (see `parseChunk`).
 *
 * An item that already has a top-level key the format uses (`seq`, `turn_id`, `batch_end`, `item`, or
 * `content` on an item that is not a message) is written in the wrapped form instead: the grep-able
 * fields plus the item verbatim under `item`. Reading either form gives back exactly the item the
 * store returned from `append` (the input's keys in order, then `seq`).
 */
const hasOwn = (object: object, key: string): boolean => Object.hasOwn(object, key)

/** Sets a key even when it is `__proto__`, which a plain assignment would treat as the prototype. */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  } else {
    target[key] = value
  }
}

/** The text a person greps for in an item that is not a message, or null when it has none. */
function textOf(item: Record<string, unknown>): string | null {
  const text = item.type === 'transition' ? item.agentFacingMessage : item.text
  return typeof text === 'string' ? text : null
}

function needsWrapping(item: Record<string, unknown>): boolean {
  return (
    hasOwn(item, 'seq') ||
    hasOwn(item, 'turn_id') ||
    hasOwn(item, 'batch_end') ||
    hasOwn(item, 'item') ||
    (item.type !== 'message' && hasOwn(item, 'content'))
  )
}

/**
 * An item serialised before its seq is known: the JSON of the line without `seq`, or, for an item in
 * the wrapped form, the item's JSON. Taking it when `append` is called also takes the copy the store
 * keeps, so later changes to the caller's object are not stored.
 */
export type PreparedLine = { wrapped: false; body: string } | { wrapped: true; json: string }

export function prepareLogLine(item: UnsequencedItem, copy: object = item): PreparedLine {
  // The form is the item's (a key that `copy`, a JSON copy, left out as undefined still wraps it),
  // the JSON its copy's, which is the same JSON.
  if (needsWrapping(item as unknown as Record<string, unknown>)) {
    return { wrapped: true, json: JSON.stringify(copy) }
  }
  const source = copy as Record<string, unknown>
  const body = renamedBody(source)
  if (body !== undefined) return { wrapped: false, body }
  const line: Record<string, unknown> = {}
  for (const key of Object.keys(source)) setKey(line, key === 'turnId' ? 'turn_id' : key, source[key])
  if (source.type !== 'message') line.content = textOf(source)
  return { wrapped: false, body: JSON.stringify(line) }
}

/** `"turnId":` as JSON writes the key. */
const TURN_ID_KEY = '"turnId":'

/**
 * The body of an item's line made by one `JSON.stringify` of the item (this runs for every item of
 * every append), or `undefined` where that is not certain to give the line: `turnId` renamed in the
 * JSON text, which is safe when every key before it holds a string, number, boolean or null (a
 * string's quotes are escaped, so the first `"turnId":` is then the item's own key), and a non-message
 * item's text added as the last key, as the object-by-object path writes them.
 */
function renamedBody(source: Record<string, unknown>): string | undefined {
  for (const key in source) {
    if (key === 'turnId') break
    const value = source[key]
    if (typeof value === 'object' && value !== null) return undefined
  }
  let json = JSON.stringify(source)
  if (Object.hasOwn(source, 'turnId') && source.turnId !== undefined) {
    const at = json.indexOf(TURN_ID_KEY)
    if (at === -1) return undefined
    json = `${json.slice(0, at)}"turn_id":${json.slice(at + TURN_ID_KEY.length)}`
  }
  if (source.type === 'message') return json
  const content = `"content":${JSON.stringify(textOf(source))}}`
  return json === '{}' ? `{${content}` : `${json.slice(0, -1)},${content}`
}

/**
 * The finished line (without the trailing newline) for a prepared item and its seq.
 * @param batchEnd the seq of the last item of a multi-item append; left out for single appends.
 */
export function sequenceLogLine(prepared: PreparedLine, seq: number, batchEnd?: number): string {
  if (prepared.wrapped) {
    const item = JSON.parse(prepared.json) as Record<string, unknown>
    item.seq = seq
    const line = JSON.stringify({
      seq,
      id: item.id,
      ts: item.ts,
      turn_id: item.turnId,
      type: item.type,
      level: item.level,
      content: item.type === 'message' ? item.content : textOf(item),
      item,
    })
    return batchEnd === undefined ? line : `${line.slice(0, -1)},"batch_end":${batchEnd}}`
  }
  // One template, the body sliced once: a line made in two steps is flattened twice.
  const { body } = prepared
  const end = batchEnd === undefined ? '}' : `,"batch_end":${batchEnd}}`
  return body === '{}' ? `{"seq":${seq}${end}` : `{"seq":${seq},${body.slice(1, -1)}${end}`
}

/** What a valid log line holds, as far as the file layer needs to know. */
export interface LogRecord {
  seq: number
  /** The seq of the last item of the append this line belongs to, when it was a multi-item append. */
  batchEnd: number | undefined
}

/**
 * Checks a parsed line and returns its seq and batch end, or a reason why it is not a log line.
 * The item itself is rebuilt lazily by {@link itemFromLogLine}.
 */
export function parseLogRecord(value: unknown): LogRecord | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'is not a JSON object'
  const record = value as Record<string, unknown>
  let seq = record.seq
  if (hasOwn(record, 'item')) {
    const item = record.item
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return '"item" is not an object'
    seq = (item as Record<string, unknown>).seq
  }
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) return 'has no valid "seq"'
  const batchEnd = record.batch_end
  if (batchEnd !== undefined && (typeof batchEnd !== 'number' || !Number.isSafeInteger(batchEnd))) {
    return 'has an invalid "batch_end"'
  }
  return { seq, batchEnd }
}

/**
 * A parsed line as a reader of `seq`, `type`, `role`, `content` and `covers` takes it, no item built:
 * the record itself (its `turn_id` not renamed), or the item of a wrapped line.
 */
export function recordAsItem(record: Record<string, unknown>): Item {
  return (hasOwn(record, 'item') ? record.item : record) as Item
}

/** The item a line holds: a fresh object every call. */
export function itemFromLogLine(line: string): Item {
  return itemFromRecord(JSON.parse(line) as Record<string, unknown>)
}

/**
 * The item of a line already parsed (by the read that validated it). The record must not be used
 * again: the item shares its objects.
 */
export function itemFromRecord(record: Record<string, unknown>): Item {
  if (isTokenedMessageLine(record)) {
    // One literal for every key: an object given keys after its literal's grows a second store for
    // them (2 MB of a 100k-item log's 96 MB).
    return {
      id: record.id,
      ts: record.ts,
      level: record.level,
      turnId: record.turn_id,
      type: record.type,
      role: record.role,
      content: record.content,
      tokens: record.tokens,
      seq: record.seq,
    } as unknown as Item
  }
  if (hasOwn(record, 'item')) return record.item as Item
  const keys = Object.keys(record)
  if (record.type === 'message' && isMessageLine(keys)) return messageFromRecord(record, keys)
  const item: Record<string, unknown> = {}
  const isMessage = record.type === 'message'
  // Runs once per item of a cold read: plain assignments, the rare `__proto__` key aside.
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!
    if (key === 'seq' || key === 'batch_end' || (key === 'content' && !isMessage)) continue
    if (key === 'turn_id') item.turnId = record[key]
    else if (key === '__proto__') setKey(item, key, record[key])
    else item[key] = record[key]
  }
  // The store appends `seq` after the caller's keys, as `{ ...item, seq }` would.
  item.seq = record.seq
  return item as unknown as Item
}

/** The keys every message line starts with, in the order core writes a message's keys. */
const MESSAGE_KEYS = ['seq', 'id', 'ts', 'level', 'turn_id', 'type', 'role', 'content'] as const

/** The keys of a message line with its token counts, in order: a `batch_end` may close them. */
const TOKENED_MESSAGE_KEYS: readonly string[] = [...MESSAGE_KEYS, 'tokens', 'batch_end']

/**
 * Whether a line is what most lines of a log are: a message as core writes it, with its token counts
 * and nothing else (maybe a `batch_end`). Its keys are walked in place: no array of them is built for
 * each line of a cold read, and each is compared with the one expected at its place (past the last,
 * none is: an eleventh key fails).
 */
function isTokenedMessageLine(record: Record<string, unknown>): boolean {
  let index = 0
  // for-in lists own keys in Object.keys' order, then inherited ones, which make the count differ.
  for (const key in record) if (key !== TOKENED_MESSAGE_KEYS[index++]) return false
  return index >= 9 && record.type === 'message'
}

/** Whether a message line's keys start as core writes them (most lines of a log): {@link messageFromRecord} reads it. */
function isMessageLine(keys: readonly string[]): boolean {
  if (keys.length < MESSAGE_KEYS.length) return false
  for (let index = 0; index < MESSAGE_KEYS.length; index++)
    if (keys[index] !== MESSAGE_KEYS[index]) return false
  return true
}

/**
 * The item of a message line: the same object {@link itemFromRecord}'s key-by-key copy builds (the
 * same keys in the same order), made from one object literal for the keys every message has, so a
 * cold read of a long log builds its items in less than half the time.
 */
function messageFromRecord(record: Record<string, unknown>, keys: readonly string[]): Item {
  const item: Record<string, unknown> = {
    id: record.id,
    ts: record.ts,
    level: record.level,
    turnId: record.turn_id,
    type: record.type,
    role: record.role,
    content: record.content,
  }
  for (let index = MESSAGE_KEYS.length; index < keys.length; index++) {
    const key = keys[index]!
    if (key === 'batch_end' || key === 'seq') continue
    if (key === 'turn_id') item.turnId = record[key]
    else if (key === '__proto__') setKey(item, key, record[key])
    else item[key] = record[key]
  }
  item.seq = record.seq
  return item as unknown as Item
}

const BATCH_END_SUFFIX = /,"batch_end":\d+\}$/

/** The line without its `batch_end`, as a rewritten file stores it. */
export function withoutBatchEnd(line: string): string {
  if (!line.includes('"batch_end":')) return line
  if (BATCH_END_SUFFIX.test(line)) return line.replace(BATCH_END_SUFFIX, '}')
  const record = JSON.parse(line) as Record<string, unknown>
  delete record.batch_end
  return JSON.stringify(record)
}

/**
 * `JSON.stringify(itemFromRecord(record))` for a plain (not wrapped) line and its parsed record, cut
 * from the line instead of building and serialising the item: the line is `{"seq":N,<the item's keys,
 * turnId written turn_id>[,"content":<text> for an item that is not a message][,"batch_end":M]}` and the
 * item's JSON is `{<the same keys, turnId>,"seq":N}`. Undefined where the line is not so (the wrapped
 * form, a line edited by hand, a key before `turn_id` holding an object, in which `"turn_id":` could also
 * stand): the caller serialises the item.
 */
export function itemJsonFromLine(line: string, record: Record<string, unknown>): string | undefined {
  // Keys are looked up as properties, not with `Object.hasOwn`: a JSON record's absent key reads
  // undefined, and a key read through the prototype (were one set there) fails a check below.
  const seq = record.seq
  if (typeof seq !== 'number' || record.item !== undefined || record.turnId !== undefined) return undefined
  const head = `{"seq":${seq},`
  if (!line.startsWith(head) || line.charCodeAt(line.length - 1) !== 125 /* } */) return undefined
  let end = line.length - 1
  // The line ends `,"batch_end":M}` when the record has one: a suffix a value inside the line cannot end
  // with (a string's quotes are escaped, an object or array closes first).
  const batchEnd = record.batch_end
  if (batchEnd !== undefined) {
    const suffix = `${BATCH_END_KEY}${batchEnd as number}`
    if (!line.endsWith(suffix, end)) return undefined
    end -= suffix.length
  }
  if (record.type !== 'message' && record.content !== undefined) {
    const suffix = `,"content":${JSON.stringify(record.content)}`
    if (!line.endsWith(suffix, end)) return undefined
    end -= suffix.length
  }
  if (record.turn_id === undefined) return `{${line.slice(head.length, end)},"seq":${seq}}`
  const turnIdAt = line.indexOf('"turn_id":', head.length - 1)
  if (turnIdAt === -1 || turnIdAt >= end || !keyAtTop(line, head.length, turnIdAt, record)) return undefined
  return `{${line.slice(head.length, turnIdAt)}"turnId"${line.slice(turnIdAt + 9, end)},"seq":${seq}}`
}

/**
 * Whether the `"turn_id":` at `at` is the record's own key, not one inside an object before it: true
 * when no object or array opens before it (a string's quotes are escaped, so the text cannot stand
 * in one), else when no key before `turn_id` holds an object.
 */
function keyAtTop(line: string, from: number, at: number, record: Record<string, unknown>): boolean {
  const brace = line.indexOf('{', from)
  const bracket = line.indexOf('[', from)
  if ((brace === -1 || brace > at) && (bracket === -1 || bracket > at)) return true
  for (const key in record) {
    if (key === 'turn_id') return true
    const value = record[key]
    if (typeof value === 'object' && value !== null) return false
  }
  return false
}

const BATCH_END_KEY = ',"batch_end":'
