import type { StrataStore, UnsequencedItem } from '@strata-memory/core'

/** Items per turn of the benchmark thread: a request, a tool call, its result and an answer. */
const TURN_ITEMS = 4

/** The four items of one turn of an agent's thread (about 250 bytes of JSON each). */
function turnItems(turn: number): UnsequencedItem[] {
  const turnId = `turn_${String(turn).padStart(6, '0')}`
  const base = (index: number) => ({
    id: `itm-${turn}-${index}`,
    ts: 1_790_000_000_000 + turn * 1_000 + index,
    level: 'global',
    turnId,
  })
  const call = `call-${turn}`
  return [
    {
      ...base(0),
      type: 'message',
      role: 'user',
      content: [
        {
          type: 'text',
          text: `Where is order A-${turn}? It was due on Monday and the tracking page says nothing.`,
        },
      ],
    },
    {
      ...base(1),
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: call, toolName: 'lookup_order', input: { orderId: `A-${turn}` } },
      ],
    },
    {
      ...base(2),
      type: 'message',
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: call,
          toolName: 'lookup_order',
          output: { orderId: `A-${turn}`, status: 'shipped', carrier: 'DHL' },
        },
      ],
    },
    {
      ...base(3),
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'text', text: `Order A-${turn} shipped with DHL yesterday; it should arrive tomorrow.` },
      ],
    },
  ]
}

/**
 * Writes a thread of `items` items (whole turns) on `store` in batches of 1 000, then archives the
 * oldest `archived` items, so a reader must take the active log and the archive together.
 */
export async function writeBenchThread(
  store: StrataStore,
  threadId: string,
  { items, archived }: { items: number; archived: number },
): Promise<void> {
  let lastSeq = 0
  let batch: UnsequencedItem[] = []
  for (let turn = 1; turn <= items / TURN_ITEMS; turn++) {
    batch.push(...turnItems(turn))
    if (batch.length >= 1_000) {
      lastSeq = (await store.append(threadId, batch, { expectedSeq: lastSeq })).at(-1)!.seq
      batch = []
    }
  }
  if (batch.length > 0) lastSeq = (await store.append(threadId, batch, { expectedSeq: lastSeq })).at(-1)!.seq
  if (archived > 0) {
    await store.archive(threadId, {
      seqs: Array.from({ length: archived }, (_value, index) => index + 1),
      expectedSeq: lastSeq,
    })
  }
}
