import { createMemory } from '@strata-memory/core'
import { createUIMessageStream, type UIMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import { writeMissedTransitions } from './missed-transitions'

type Chunk = { type: string; id?: string; data?: { seq: number; title: string; text: string } }

async function chunksOf(stream: ReadableStream<unknown>): Promise<Chunk[]> {
  const chunks: Chunk[] = []
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return chunks
    chunks.push(value as Chunk)
  }
}

describe('writeMissedTransitions', () => {
  it('writes the transitions made between responses that the chat does not show, once', async () => {
    const memory = createMemory()
    const thread = await memory.thread('between')
    await thread.append({ role: 'user', content: 'Plan the garden' })
    await thread.enter('project', { title: 'Garden' })
    await thread.enter('task', { title: 'Dig the beds' })
    await thread.exit({ outcome: 'complete', summary: 'Dug two beds.' }) // closed by the app, between responses
    const run = async (messages: UIMessage[]) => {
      let written = -1
      const chunks = await chunksOf(
        createUIMessageStream({
          execute: async ({ writer }) => {
            written = await writeMissedTransitions({ writer, memory, threadId: 'between', messages })
          },
        }),
      )
      return { written, parts: chunks.filter((chunk) => chunk.type === 'data-memory-transition') }
    }
    const first = await run([{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Plan the garden' }] }])
    expect(first.written).toBe(1)
    const [part] = first.parts
    expect(part!.data!.title).toBe('Dig the beds')
    expect(part!.data!.text).toMatch(/Dig the beds/)
    const transition = (await thread.items()).find((item) => item.type === 'transition')!
    expect(part!.data!.seq).toBe(transition.seq)

    // The chat now holds that part (useChat re-sends it): nothing is written again.
    const shown: UIMessage = {
      id: 'a1',
      role: 'assistant',
      parts: [{ type: 'data-memory-transition', id: part!.id, data: part!.data }],
    }
    const again = await run([{ id: 'u1', role: 'user', parts: [] }, shown])
    expect(again.written).toBe(0)
    expect(again.parts).toEqual([])

    // A second scope closed after that: only it is written.
    await thread.exit({ outcome: 'complete', summary: 'Garden planned.' })
    const next = await run([shown])
    expect(next.parts.map((chunk) => chunk.data!.title)).toEqual(['Garden'])
  })

  it('with lastSeq: a scope opened before the page’s last seq and closed after it keeps its title', async () => {
    const memory = createMemory()
    const thread = await memory.thread('by-seq')
    await thread.append({ role: 'user', content: 'Plan the garden' })
    await thread.enter('project', { title: 'Garden' })
    await thread.append({ role: 'assistant', content: 'Started the garden plan.' })
    const lastSeq = (await thread.items()).at(-1)!.seq // what the page shows
    await thread.exit({ outcome: 'complete', summary: 'Garden planned.' }) // closed between responses
    const chunks = await chunksOf(
      createUIMessageStream({
        execute: async ({ writer }) => {
          await writeMissedTransitions({ writer, memory, threadId: 'by-seq', lastSeq })
        },
      }),
    )
    const parts = chunks.filter((chunk) => chunk.type === 'data-memory-transition')
    expect(parts.map((chunk) => chunk.data!.title)).toEqual(['Garden'])
    expect(parts[0]!.data!.seq).toBeGreaterThan(lastSeq)
  })

  it('writes a compaction only where the answer about to stream is the one that shows it, as loadUIMessages does', async () => {
    const memory = createMemory({ compaction: { budget: { inputTokens: 2_000, rawTailTurns: 1 } } })
    const thread = await memory.thread('compacted')
    for (let turn = 1; turn <= 4; turn++) {
      await thread.append({ role: 'user', content: `Question ${turn}` })
      await thread.append({ role: 'assistant', content: `Answer ${turn}` })
    }
    const lastAnswer = (await thread.items()).at(-1)!.seq
    await thread.compact({ force: true })
    const summary = (await thread.items()).find((item) => item.type === 'summary' && item.compaction)
    expect(summary).toBeDefined()
    const run = async (options: { lastSeq?: number; messages?: UIMessage[] }) => {
      let written = -1
      const chunks = await chunksOf(
        createUIMessageStream({
          execute: async ({ writer }) => {
            written = await writeMissedTransitions({ writer, memory, threadId: 'compacted', ...options })
          },
        }),
      )
      return { written, parts: chunks.filter((chunk) => chunk.type === 'data-memory-compaction') }
    }
    // After the last answer, before a new question: a reload shows it on that answer, so the next
    // answer does not.
    expect(await run({ lastSeq: lastAnswer })).toEqual({ written: 0, parts: [] })
    expect((await run({ messages: [] })).parts).toEqual([])
    // The last answer replaced (a regenerate rewinds it; the compaction stays): the answer about to
    // stream shows it first, by lastSeq (the question's seq) or by the messages the page still has.
    const question = (await thread.items()).findLast(
      (item) => item.type === 'message' && item.role === 'user',
    )!
    await thread.rewind({ afterSeq: question.seq })
    const byLastSeq = await run({ lastSeq: question.seq })
    expect(byLastSeq.written).toBe(1)
    expect(byLastSeq.parts).toEqual([
      expect.objectContaining({ id: summary!.id, data: expect.objectContaining({ seq: summary!.seq }) }),
    ])
    const byMessages = await run({ messages: [{ id: 'q4', role: 'user', parts: [] }] })
    expect(byMessages.parts).toEqual(byLastSeq.parts)
    // A page that shows it already gets nothing again.
    const shown: UIMessage = {
      id: 'a',
      role: 'assistant',
      parts: [byLastSeq.parts[0] as UIMessage['parts'][number]],
    }
    expect((await run({ messages: [shown] })).parts).toEqual([])
  })

  it('refuses a call without the chat messages or with a bad thread id, with typed errors', async () => {
    const memory = createMemory()
    await chunksOf(
      createUIMessageStream({
        execute: async ({ writer }) => {
          await expect(
            writeMissedTransitions({ writer, memory, threadId: 'ok', messages: undefined as never }),
          ).rejects.toMatchObject({ code: 'STRATA_INVALID_OPTIONS' })
          await expect(
            writeMissedTransitions({ writer, memory, threadId: '', messages: [] }),
          ).rejects.toMatchObject({ code: 'STRATA_INVALID_THREAD_ID' })
        },
      }),
    )
  })
})
