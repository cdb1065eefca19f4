/**
 * The JSON of the item a file store log line holds — `JSON.stringify(itemFromLogRecord(record))` —
 * cut from the line itself instead of rebuilding and serialising the item: the line is
 * `{"seq":N,<the item's keys, turnId written turn_id>[,"content":<text> for a non-message][,"batch_end":M]}`
 * and the item is `{<the same keys, turnId>,"seq":N}`. Every assumption is checked against the
 * parsed record; when one does not hold (the wrapped form, a line edited by hand), it returns
 * undefined and the caller serialises the item.
 */
export function itemJsonFromLine(line: string, record: Record<string, unknown>): string | undefined {
  const seq = record.seq
  if (typeof seq !== 'number' || Object.hasOwn(record, 'item')) return undefined
  // A line that starts so has `seq` as its first key (the store writes it first).
  const head = `{"seq":${seq},`
  if (!line.startsWith(head)) return undefined
  // One pass over the keys: the last two, and whether an object comes before turn_id.
  let last: string | undefined
  let beforeLast: string | undefined
  let objectBeforeTurnId = false
  let turnIdSeen = false
  for (const key in record) {
    beforeLast = last
    last = key
    if (key === 'turn_id') turnIdSeen = true
    else if (!turnIdSeen && typeof record[key] === 'object' && record[key] !== null) objectBeforeTurnId = true
  }
  // Where the top-level "turn_id" key starts. While the keys before it hold scalars, the first
  // `"turn_id":` of the line is that key: inside a JSON string its quotes would be escaped.
  let turnIdAt = -1
  if (turnIdSeen) {
    if (objectBeforeTurnId) return undefined
    turnIdAt = line.indexOf('"turn_id":', head.length)
    if (turnIdAt === -1 || line.charCodeAt(turnIdAt - 1) !== 44 /* , */) return undefined
  }
  let end = line.length - 1
  if (line.charCodeAt(end) !== 125 /* } */) return undefined
  if (last === 'batch_end') {
    const suffix = `,"batch_end":${JSON.stringify(record.batch_end)}`
    if (!line.endsWith(suffix, end)) return undefined
    end -= suffix.length
    last = beforeLast
  } else if (Object.hasOwn(record, 'batch_end')) return undefined
  if (record.type !== 'message' && Object.hasOwn(record, 'content')) {
    if (last !== 'content') return undefined
    const suffix = `,"content":${JSON.stringify(record.content)}`
    if (!line.endsWith(suffix, end)) return undefined
    end -= suffix.length
  }
  if (turnIdAt === -1) return `{${line.slice(head.length, end)},"seq":${seq}}`
  return `{${line.slice(head.length, turnIdAt)}"turnId"${line.slice(turnIdAt + 9, end)},"seq":${seq}}`
}
