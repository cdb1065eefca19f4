import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import type { Item } from '../items'
import { type ArchiveOptions, inMemoryStore, type StrataStore } from '../stores'
import { createMemory } from './create-memory'

/*
 * A budget compaction writes its summary, then archives what the summary covers: two store calls. A
 * store that fails between them (out of space) must leave a thread that shows every turn once and
 * never summarizes the same turns twice; a store that fails after its archive took effect must not
 * make `compact()` reject.
 */

type Fault = 'before' | 'after' | 'none'

/** An in-memory store whose next archive fails, before or after it takes effect, as told. */
function faultyStore() {
  const store = inMemoryStore()
  const control = { next: 'none' as Fault, archives: 0 }
  const archive = store.archive.bind(store)
  const faulty: StrataStore = Object.assign(Object.create(store) as StrataStore, {
    async archive(threadId: string, options: ArchiveOptions) {
      control.archives++
      const fault = control.next
      control.next = 'none'
      if (fault === 'before') throw spaceError(threadId)
      const moved = await archive(threadId, options)
      if (fault === 'after') throw spaceError(threadId)
      return moved
    },
  })
  return { store: faulty, base: store, control }
}

const spaceError = (threadId: string) =>
  new StrataError({
    code: 'STRATA_STORE_FAILED',
    message: 'ENOSPC: no space left on device',
    details: { threadId, errorCode: 'ENOSPC' },
  })

async function longThread(store: StrataStore) {
  const memory = createMemory({
    store,
    compaction: { budget: { maxContextTokens: 4_000, maxOutputTokens: 500, rawTailTurns: 2 } },
  })
  const thread = await memory.thread('chat-1')
  for (let turn = 1; turn <= 8; turn++) {
    await thread.append({ role: 'user', content: `Turn ${turn}: tell me about city number ${turn}` })
    await thread.append({ role: 'assistant', content: `City ${turn} has ${turn * 1000} inhabitants.` })
  }
  return { memory, thread }
}

const summaries = (items: readonly Item[]) => items.filter((item) => item.type === 'summary')
/** Each user text that shows in a context, with how often. */
const userTexts = (messages: readonly { role: string; content: unknown }[]) =>
  messages.flatMap((message) =>
    message.role === 'user' && typeof message.content === 'string'
      ? [message.content]
      : message.role === 'user' && Array.isArray(message.content)
        ? message.content.flatMap((part: { type: string; text?: string }) =>
            part.type === 'text' && part.text !== undefined ? [part.text] : [],
          )
        : [],
  )

describe('a budget compaction cut short by the store', () => {
  it('failing before its archive: every turn shows once, the next write archives, no second summary', async () => {
    const { store, base, control } = faultyStore()
    const { memory, thread } = await longThread(store)
    control.next = 'before'
    await expect(thread.compact({ force: true })).rejects.toMatchObject({ code: 'STRATA_STORE_FAILED' })

    // The summary was stored and stands for the turns it covers, though the store still holds them active.
    const stored = await base.read('chat-1')
    const [summary] = summaries(stored)
    expect(summary).toBeDefined()
    const covered = new Set<number>()
    for (const { fromSeq, toSeq } of (summary as Extract<Item, { type: 'summary' }>).covers ?? [])
      for (let seq = fromSeq; seq <= toSeq; seq++) covered.add(seq)
    expect(covered.size).toBeGreaterThan(0)
    expect(stored.filter((item) => covered.has(item.seq))).toHaveLength(covered.size)
    const shown = userTexts((await thread.context()).messages)
    expect(shown.some((text) => text.startsWith('Turn 1:'))).toBe(false)
    expect(new Set(shown).size).toBe(shown.length)

    // A fresh process opening the thread sees the same.
    const reopened = await createMemory({ store: base }).thread('chat-1')
    expect((await reopened.items()).some((item) => covered.has(item.seq))).toBe(false)

    // A second compaction does not summarize those turns again; the write before it archives them.
    await thread.compact({ force: true })
    const after = await base.read('chat-1')
    expect(after.some((item) => covered.has(item.seq))).toBe(false)
    const archived = await base.readArchive('chat-1')
    expect(archived.filter((item) => covered.has(item.seq))).toHaveLength(covered.size)
    const ranges = summaries([...archived, ...after]).flatMap((item) =>
      item.type === 'summary' ? (item.covers ?? []) : [],
    )
    for (const seq of covered)
      expect(ranges.filter(({ fromSeq, toSeq }) => fromSeq <= seq && seq <= toSeq)).toHaveLength(1)
    await memory.close()
  })

  it('failing after its archive took effect: compact() resolves', async () => {
    const { store, base, control } = faultyStore()
    const { memory, thread } = await longThread(store)
    control.next = 'after'
    await thread.compact({ force: true })
    const [summary] = summaries(await base.read('chat-1'))
    expect(summary).toBeDefined()
    expect(control.archives).toBe(1)
    expect(
      (await thread.items()).some((item) => item.type === 'message' && item.turnId === 'turn_0001'),
    ).toBe(false)
    await memory.close()
  })

  it('an append after the cut-short compaction archives what its summary covers, once', async () => {
    const { store, base, control } = faultyStore()
    const { memory, thread } = await longThread(store)
    control.next = 'before'
    await thread.compact({ force: true }).catch(() => undefined)
    const before = (await base.head('chat-1')).archivedCount
    expect(before).toBe(0)
    await thread.append({ role: 'user', content: 'And city nine?' })
    const head = await base.head('chat-1')
    expect(head.archivedCount).toBeGreaterThan(0)
    // The thread's counts agree with the store's: nothing is read again whole at the next refresh.
    expect(await thread.items()).toHaveLength(head.activeCount)
    await memory.close()
  })
})
