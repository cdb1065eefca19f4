import type { Item, MessageItem } from '@strata-memory/core'

const WORDS = [
  'release',
  'billing',
  'migration',
  'report',
  'onboarding',
  'search',
  'cache',
  'dashboard',
  'pipeline',
  'pricing',
  'refund',
  'webhook',
]
const PEOPLE = ['Ana Lima', 'Ben Ortiz', 'Chen Wei', 'Dara Singh', 'Eva Novak']

/**
 * A long thread's items as the pattern summarizer reads them: per turn a user message (a request, now
 * and then a preference or a name, an identifier such as `PO-1234`), every third turn a tool call with
 * a 1–8 KB JSON result, and an answer that tells a value. Deterministic in `count`.
 */
export function summarizerItems(count: number): Item[] {
  const items: Item[] = []
  let turn = 0
  const push = (item: Pick<MessageItem, 'type' | 'role' | 'content'>) => {
    const seq = items.length + 1
    items.push({
      ...item,
      seq,
      id: `item_${seq}`,
      ts: 1_700_000_000_000 + seq,
      level: 'global',
      turnId: `turn_${String(turn).padStart(4, '0')}`,
    } as Item)
  }
  while (items.length < count) {
    turn++
    const word = WORDS[turn % WORDS.length]!
    const person = PEOPLE[turn % PEOPLE.length]!
    const preference = turn % 7 === 0 ? ` I prefer ${word} reports in the morning ${turn % 50}.` : ''
    push({
      type: 'message',
      role: 'user',
      content: [
        {
          type: 'text',
          text: `Can you check the ${word} for order PO-${1000 + (turn % 9000)} from ${person}?${preference} It is urgent for the team.`,
        },
      ],
    })
    if (turn % 3 === 0 && items.length < count) {
      const rows = Array.from({ length: 8 + (turn % 56) }, (_, row) => ({
        id: `row_${turn}_${row}`,
        total: `${(turn * 7 + row) % 5000}.00 EUR`,
        note: `${word} line ${row} checked by ${person}`,
      }))
      push({
        type: 'message',
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: `call_${turn}`,
            toolName: 'lookup',
            input: { action: `find_${word}`, id: `PO-${turn}` },
          },
        ],
      })
      if (items.length < count) {
        push({
          type: 'message',
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: `call_${turn}`, toolName: 'lookup', output: { rows } },
          ],
        })
      }
    }
    if (items.length < count) {
      push({
        type: 'message',
        role: 'assistant',
        content: [
          {
            type: 'text',
            text: `Invoice PO-${1000 + (turn % 9000)} from ${person} totals ${(turn * 13) % 9000}.50 EUR. The ${word} looks fine otherwise.`,
          },
        ],
      })
    }
  }
  return items
}
