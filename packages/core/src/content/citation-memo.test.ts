import { describe, expect, it } from 'vitest'
import type { Item, MessageItem, MessagePart } from '../items'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'
import { makePage } from '../testing'
import { deepFreeze } from '../thread-state/frozen-items'
import { type CitingMemo, expandCitations } from './citation-expansion'
import { CONTENT_META_KEY } from './content-reference'

const options = { briefAfterTurns: 3, maxCitations: 8 }
const get = async () => undefined

let seq = 0
function message(role: 'user' | 'assistant', content: MessagePart[]): MessageItem {
  seq++
  return { id: `m${seq}`, seq, ts: seq, level: 'task', turnId: 'turn_0001', type: 'message', role, content }
}
const plain = (text: string) => message('user', [{ type: 'text', text }])
const citing = () =>
  message('user', [
    { type: 'text', text: '[stored text]', meta: { [CONTENT_META_KEY]: { id: 'mem_1', kind: 'text' } } },
  ])

describe('expandCitations with the view of the last context kept', () => {
  it('checks only what a longer view added, and still finds a citation the added items bring', async () => {
    const memo: CitingMemo = {}
    const first = [plain('a'), plain('b')]
    for (const item of first) deepFreeze(item)
    expect(await expandCitations(first, first, { options, get, memo })).toBe(first)
    expect(memo.last).toEqual({ view: first, citing: 0 })
    expect(memo.last?.view).not.toBe(first)

    const added = citing()
    deepFreeze(added)
    const second = [...first, added]
    const shown = await expandCitations(second, second, { options, get, memo })
    // The citation is shown (here as its plain form: the store has no record), not passed through.
    expect(shown).not.toBe(second)
    expect(shown.at(-1)).not.toBe(added)
    expect(memo.last).toEqual({ view: second, citing: 1 })
  })

  it('keeps no view whose items may still change, and counts a view of other items again', async () => {
    const memo: CitingMemo = {}
    const open = [plain('a')]
    await expandCitations(open, open, { options, get, memo })
    expect(memo.last).toBeUndefined()

    const frozen = [plain('b')]
    deepFreeze(frozen[0]!)
    await expandCitations(frozen, frozen, { options, get, memo })
    const other: Item[] = [citing()]
    deepFreeze(other[0]!)
    // Not an extension of the kept view: every item is checked.
    expect(await expandCitations(other, other, { options, get, memo })).not.toBe(other)
  })

  it('a list changed in place after a context is counted as it is now', async () => {
    const memo: CitingMemo = {}
    const list: Item[] = [plain('a'), plain('b')]
    for (const item of list) deepFreeze(item)
    expect(await expandCitations(list, list, { options, get, memo })).toBe(list)
    const cited = citing()
    deepFreeze(cited)
    list[1] = cited
    expect(await expandCitations(list, list, { options, get, memo })).not.toBe(list)
  })

  it('a thread shows a large result stored after contexts without citations', async () => {
    const memory = createMemory({ store: inMemoryStore() })
    const thread = await memory.thread('citation-memo')
    await thread.append({ role: 'user', content: 'Read the page' })
    await thread.append({ role: 'assistant', content: 'Reading it.' })
    await thread.context()
    await thread.context()
    const page = makePage(8_000, 'report')
    await thread.append({ role: 'user', content: [{ type: 'text', text: page }] })
    const fresh = await thread.context()
    // The newest user message arrived after the last answer: shown whole, restored from the store.
    expect(fresh.messages.at(-1)!.content).toEqual([{ type: 'text', text: page }])
    await thread.append({ role: 'assistant', content: 'Done.' })
    const later = await thread.context()
    const cited = later.messages.at(-2)!.content[0]
    expect(cited?.type === 'text' && cited.text.startsWith('[stored text from user')).toBe(true)
  })
})
