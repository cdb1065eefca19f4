import { describe, expect, it } from 'vitest'
import type { MessageItem } from '../items'
import { inMemoryStore, type StrataStore } from '../stores'
import { createMemory } from './create-memory'

const code = (value: string) => expect.objectContaining({ code: value })

const call = (id: string) => ({
  role: 'assistant' as const,
  content: [{ type: 'tool-call' as const, toolCallId: id, toolName: 'draw', input: { shape: { id } } }],
})
const result = (id: string) => ({
  role: 'tool' as const,
  content: [
    { type: 'tool-result' as const, toolCallId: id, toolName: 'draw', output: { drawn: [id] } as never },
  ],
})

/** A thread written by one memory, then opened by a fresh one: what it holds comes from the store. */
async function reopened(store: StrataStore, threadId: string) {
  return createMemory({ store }).thread(threadId)
}

describe('a thread opened from the store', () => {
  it('hands out frozen items from its views and tool interactions, copies from items()', async () => {
    const store = inMemoryStore()
    const writer = await createMemory({ store }).thread('frozen')
    await writer.append([{ role: 'user', content: 'draw', meta: { tags: ['a'] } }, call('c1'), result('c1')])
    const thread = await reopened(store, 'frozen')
    await thread.context()
    const [first, second] = (await thread.view()) as MessageItem[]
    expect(() => {
      ;(first!.content[0] as { text: string }).text = 'changed'
    }).toThrow(TypeError)
    expect(() => (first!.meta!.tags as string[]).push('b')).toThrow(TypeError)
    const input = (second!.content[0] as unknown as { input: { shape: { id: string } } }).input
    expect(() => {
      input.shape.id = 'other'
    }).toThrow(TypeError)
    const [interaction] = await thread.toolInteractions()
    expect(() => (interaction!.output as { drawn: string[] }).drawn.push('x')).toThrow(TypeError)
    const copies = (await thread.items()) as MessageItem[]
    ;(copies[0]!.content[0] as { text: string }).text = 'changed'
    const { messages } = await thread.context()
    expect(messages[0]!.content[0]).toEqual({ type: 'text', text: 'draw' })
  })

  it('checks new messages against the ids and tool calls of archived and rewound items', async () => {
    const store = inMemoryStore()
    const writer = await createMemory({ store }).thread('index')
    await writer.append([{ role: 'user', content: 'a', id: 'kept' }, call('c1')])
    await writer.append([{ role: 'user', content: 'b', id: 'archived' }, call('c2')])
    await writer.append([{ role: 'user', content: 'c', id: 'rewound' }, call('c3')])
    await store.archive('index', { seqs: [3, 4] })

    const thread = await reopened(store, 'index')
    await thread.rewind({ afterSeq: 4 })
    expect((await thread.items()).map((item) => item.id)).toEqual(['kept', expect.any(String)])
    for (const id of ['kept', 'archived', 'rewound']) {
      await expect(thread.append({ role: 'user', content: 'again', id })).rejects.toThrow(
        code('STRATA_DUPLICATE_ITEM_ID'),
      )
    }
    await expect(thread.append(result('c9'))).rejects.toThrow(code('STRATA_UNKNOWN_TOOL_CALL'))
    // Results of an archived and of a rewound call still take their call's level and turn.
    const late = await thread.append([result('c2'), result('c3')])
    expect(late.map((item) => item.turnId)).toEqual(['turn_0002', 'turn_0003'])
    await thread.append({ role: 'user', content: 'new', id: 'fresh' })
    await expect(thread.append({ role: 'user', content: 'again', id: 'fresh' })).rejects.toThrow(
      code('STRATA_DUPLICATE_ITEM_ID'),
    )
  })
})
