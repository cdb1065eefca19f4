import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import type { Item } from '../items'
import { createMemory } from './create-memory'

const text = (item: Item) =>
  item.type === 'transition'
    ? `transition ${item.fromLevel}`
    : item.type === 'message'
      ? `${item.role}: ${item.content.map((part) => (part.type === 'text' ? part.text : part.type)).join(' ')}`
      : item.type

describe('thread.transcript', () => {
  it('reads compacted turns back, never a rewound answer, with offloaded parts whole', async () => {
    const memory = createMemory({
      content: { offloadAboveBytes: 200 },
      compaction: { budget: { inputTokens: 2_000, rawTailTurns: 1 } },
    })
    const thread = await memory.thread('transcript')
    const long = `Please read this: ${'lorem ipsum '.repeat(40)}`
    const page = { rows: Array.from({ length: 30 }, (_, index) => ({ index, name: `row ${index}` })) }
    await thread.append({ role: 'user', content: long })
    await thread.append([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'rows', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'rows', output: page }] },
      { role: 'assistant', content: 'Read it.' },
    ])
    // The stored log holds citations in place of the long message and the result.
    const stored = await thread.items()
    expect(JSON.stringify(stored)).not.toContain('row 29')
    await thread.append({ role: 'user', content: 'Second' })
    const [discarded] = await thread.append({ role: 'assistant', content: 'First answer' })
    await thread.rewind({ afterSeq: discarded!.seq - 1 })
    await thread.append({ role: 'assistant', content: 'Second answer' })
    await thread.enter('task', { title: 'Work' })
    await thread.append({ role: 'assistant', content: 'Working' })
    await thread.exit({ summary: 'Done.' })
    await thread.append({ role: 'user', content: 'Third' })
    await thread.append({ role: 'assistant', content: 'Third answer' })
    await thread.compact({ force: true })
    expect((await thread.status()).items.archived).toBeGreaterThan(1)

    const { items, more, fromSeq } = await thread.transcript()
    expect(more).toBe(false)
    expect(fromSeq).toBe(1)
    expect(items.map(text)).toEqual([
      `user: ${long}`,
      'assistant: tool-call',
      'tool: tool-result',
      'assistant: Read it.',
      'user: Second',
      'assistant: Second answer',
      'user: Task: Work',
      'assistant: Working',
      'transition task',
      'user: Third',
      'assistant: Third answer',
    ])
    const result = items[2]!
    expect(result.type === 'message' && result.content[0]).toMatchObject({
      type: 'tool-result',
      output: page,
    })

    const cited = await thread.transcript({ restore: false })
    expect(JSON.stringify(cited.items)).not.toContain('row 29')
    expect(cited.items.map((item) => item.seq)).toEqual(items.map((item) => item.seq))
    const visible = await thread.transcript({ archived: false })
    const active = new Set((await thread.items()).map((item) => item.seq))
    expect(visible.items.map((item) => item.seq)).toEqual(
      items.map((item) => item.seq).filter((seq) => active.has(seq)),
    )
    expect(visible.items.map(text)).not.toContain(`user: ${long}`)
    expect(visible.items.map(text)).toContain('user: Third')
  })

  it('pages by turns from the end', async () => {
    const memory = createMemory()
    const thread = await memory.thread('paged')
    for (let turn = 1; turn <= 5; turn++) {
      await thread.append([
        { role: 'user', content: `q${turn}` },
        { role: 'assistant', content: `a${turn}` },
      ])
    }
    const last = await thread.transcript({ turns: 2 })
    expect(last.items.map(text)).toEqual(['user: q4', 'assistant: a4', 'user: q5', 'assistant: a5'])
    expect(last.more).toBe(true)
    const before = await thread.transcript({ turns: 2, beforeSeq: last.fromSeq })
    expect(before.items.map(text)).toEqual(['user: q2', 'assistant: a2', 'user: q3', 'assistant: a3'])
    const first = await thread.transcript({ turns: 2, beforeSeq: before.fromSeq })
    expect(first.items.map(text)).toEqual(['user: q1', 'assistant: a1'])
    expect(first.more).toBe(false)
  })

  it('lists the compactions of the page with compactions: true, at their seqs', async () => {
    const memory = createMemory({ compaction: { budget: { inputTokens: 100_000, rawTailTurns: 1 } } })
    const thread = await memory.thread('compactions')
    for (let turn = 1; turn <= 3; turn++) {
      await thread.append([
        { role: 'user', content: `q${turn}` },
        { role: 'assistant', content: `a${turn}` },
      ])
    }
    await thread.compact({ force: true })
    for (let turn = 4; turn <= 5; turn++) {
      await thread.append([
        { role: 'user', content: `q${turn}` },
        { role: 'assistant', content: `a${turn}` },
      ])
    }
    const all = await thread.transcript({ compactions: true })
    expect(all.compactions).toHaveLength(1)
    const [summary] = all.compactions!
    expect(summary).toMatchObject({ type: 'summary', tier: 'episodic', compaction: { trigger: 'manual' } })
    expect(summary!.compaction!.itemsArchived).toBe((await thread.status()).items.archived)
    // Between the last item before it and the first after it.
    const next = all.items.find((item) => item.seq > summary!.seq)!
    expect(text(next)).toBe('user: q4')
    expect(all.items.filter((item) => item.seq < summary!.seq).length).toBeGreaterThan(0)
    // Without the option, none; a page after it or before it holds none.
    expect((await thread.transcript()).compactions).toBeUndefined()
    expect((await thread.transcript({ compactions: true, turns: 2 })).compactions).toEqual([])
    expect((await thread.transcript({ compactions: true, beforeSeq: summary!.seq })).compactions).toEqual([])
    expect((await thread.transcript({ compactions: true, turns: 3 })).compactions).toEqual([summary])
  })

  it('refuses bad options with STRATA_INVALID_OPTIONS', async () => {
    const thread = await createMemory().thread('bad')
    for (const options of [
      { turns: 0 },
      { beforeSeq: -1 },
      { afterSeq: 1.5 },
      { archived: 'yes' },
      { restore: 1 },
      { compactions: 'yes' },
    ]) {
      const error = await thread.transcript(options as never).catch((caught: unknown) => caught)
      expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')).toBe(true)
    }
  })
})
