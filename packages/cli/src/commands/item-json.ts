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
  const keys = Object.keys(record)
  if (keys[0] !== 'seq') return undefined
  const head = `{"seq":${seq},`
  if (!line.startsWith(head)) return undefined
  // Where the top-level "turn_id" key starts. While the keys before it hold scalars, the first
  // `"turn_id":` of the line is that key: inside a JSON string its quotes would be escaped.
  let turnIdAt = -1
  if (Object.hasOwn(record, 'turn_id')) {
    for (const key of keys) {
      if (key === 'turn_id') break
      const value = record[key]
      if (typeof value === 'object' && value !== null) return undefined
    }
    turnIdAt = line.indexOf('"turn_id":', head.length)
    if (turnIdAt === -1 || line[turnIdAt - 1] !== ',') return undefined
  }
  const nonMessageContent = record.type !== 'message' && Object.hasOwn(record, 'content')
  let end = line.length - 1
  if (line[end] !== '}') return undefined
  let last = keys.length - 1
  if (keys[last] === 'batch_end') {
    const suffix = `,"batch_end":${JSON.stringify(record.batch_end)}`
    if (line.slice(end - suffix.length, end) !== suffix) return undefined
    end -= suffix.length
    last--
  } else if (Object.hasOwn(record, 'batch_end')) return undefined
  if (nonMessageContent) {
    if (keys[last] !== 'content') return undefined
    const suffix = `,"content":${JSON.stringify(record.content)}`
    if (line.slice(end - suffix.length, end) !== suffix) return undefined
    end -= suffix.length
  }
  if (turnIdAt === -1) return `{${line.slice(head.length, end)},"seq":${seq}}`
  return `{${line.slice(head.length, turnIdAt)}"turnId"${line.slice(turnIdAt + 9, end)},"seq":${seq}}`
}
