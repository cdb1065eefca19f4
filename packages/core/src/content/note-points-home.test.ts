import { describe, expect, it } from 'vitest'
import type { ContextMessage } from '../context'
import type { MessageInput } from '../items'
import { createMemory } from '../memory'
import { inMemoryStore, type StrataStore } from '../stores'
import { fetchMessages, makePage, makeSummaryItem } from '../testing'
import type { MemoryRetrieveOutput, MemoryToolError } from './memory-tool-types'
import { memoryTools } from './memory-tools'

// DESIGN invariant 6: every note points home. A cut's, a citation's or an omission's id answers
// memory_retrieve with the whole original, byte for byte; retrieved content is never stored again.

const ok = <T>(result: T | MemoryToolError): T => {
  if (typeof result === 'object' && result !== null && 'error' in result)
    throw new Error(result.error.message)
  return result as T
}

/** Every id a context's notes name: in cut notes (`memory_retrieve {"id":…}`) and omitted-note lines. */
function notedIds(messages: readonly ContextMessage[]): { cut: string[]; omitted: string[] } {
  const text = JSON.stringify(messages)
  const cut = [...text.matchAll(/\[truncated[^\]]*?memory_retrieve \{\\"id\\":\\"([^\\]+)\\"\}/g)].map(
    (match) => match[1]!,
  )
  const note = messages.find((message) =>
    message.content.some((part) => part.type === 'text' && part.text.startsWith('[MEMORY:OMITTED]')),
  )
  const noteText = note === undefined ? '' : (note.content[0] as { text: string }).text
  const omitted = [...noteText.matchAll(/→ (.+)$/gm)].flatMap((match) => match[1]!.split(', '))
  return { cut, omitted }
}

const contentRecords = async (store: StrataStore, threadId: string) =>
  (await store.queryContent!(threadId)).length

/** Writes with no budget (nothing compacts), reads with `budget`. */
async function threads(store: StrataStore, budget: number) {
  let ids = 0
  const generateId = () => `id${++ids}`
  const writer = await createMemory({ store, generateId }).thread('home')
  const reader = await createMemory({
    store,
    generateId,
    compaction: { budget: { inputTokens: budget } },
  }).thread('home')
  return { writer, reader, tools: memoryTools(reader) }
}

describe('every note points home (invariant 6)', () => {
  it('cut results, cut texts and omitted steps: each id returns the original byte for byte', async () => {
    const store = inMemoryStore()
    const { writer, reader, tools } = await threads(store, 2_000)
    const originals = new Map<string, string>()
    await writer.append({ role: 'user', content: 'Fetch the pages and take notes.' })
    for (let step = 0; step < 10; step++) {
      // Large pages go to the content store; small ones stay in the log.
      const page = makePage(step % 2 === 0 ? 20_000 : 3_000, `page${step}`)
      originals.set(`page${step}`, page)
      await writer.append(fetchMessages(`c${step}`, `https://example.com/${step}`, page))
      // A long text, and a message of two texts (its parts have ids of their own).
      const note = makePage(2_500, `note${step}`)
      originals.set(`note${step}`, note)
      await writer.append({
        role: 'assistant',
        content: [
          { type: 'text', text: `Notes on page ${step}:` },
          { type: 'text', text: note },
        ],
      })
    }
    const { messages } = await reader.context({ system: 'You are an agent.' })
    const { cut, omitted } = notedIds(messages)
    expect(cut.length).toBeGreaterThan(0)
    expect(omitted.length).toBeGreaterThan(0)
    // The short texts of the thread as stored (the log keeps them as they were written).
    const texts = new Set(
      (await writer.items()).flatMap((item) =>
        item.type === 'message'
          ? item.content.flatMap((part) => (part.type === 'text' ? [part.text] : []))
          : [],
      ),
    )
    const reached = new Set<string>()
    for (const id of [...cut, ...omitted]) {
      const { content } = ok<MemoryRetrieveOutput>(await tools.memory_retrieve.execute({ id }))
      // Each id returns one original whole: a page, a note text, or a text of the thread.
      const whole = [...originals.values()].includes(content) || texts.has(content)
      expect(whole, `${id} returned ${content.slice(0, 80)}…`).toBe(true)
      reached.add(content)
    }
    // Every original that was cut or left out is reachable from the context.
    expect([...originals.values()].filter((original) => reached.has(original)).length).toBeGreaterThanOrEqual(
      4,
    )
  })

  it('a cut note gives the original length, not the citation length', async () => {
    const store = inMemoryStore()
    const { writer, reader } = await threads(store, 2_000)
    const page = makePage(12_181, 'big')
    await writer.append({ role: 'user', content: 'Fetch it.' })
    await writer.append(fetchMessages('c', 'https://example.com/big', page))
    const { messages } = await reader.context({ alongside: 'word '.repeat(400) })
    const text = JSON.stringify(messages)
    expect(text).toContain(`of ${page.length} characters left out`)
  })

  it('a retrieved result is never stored again; its cut names the id it read, which returns the original', async () => {
    const store = inMemoryStore()
    const { writer, reader, tools } = await threads(store, 2_000)
    const page = makePage(30_000, 'retrieved')
    await writer.append({ role: 'user', content: 'Fetch it, then read it again.' })
    await writer.append(fetchMessages('c', 'https://example.com/', page))
    const records = await contentRecords(store, 'home')
    const memoryId = (await store.queryContent!('home'))[0]!.id
    // The model retrieves it twice, as agents do when a note sends them back.
    for (const call of ['r1', 'r2']) {
      const output = ok<MemoryRetrieveOutput>(await tools.memory_retrieve.execute({ id: memoryId }))
      expect(output.content).toBe(page)
      const messages: MessageInput[] = [
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: call, toolName: 'memory_retrieve', input: { id: memoryId } },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: call,
              toolName: 'memory_retrieve',
              output: output as unknown as Record<string, string>,
            },
          ],
        },
      ]
      await writer.append(messages)
    }
    expect(await contentRecords(store, 'home')).toBe(records)
    // Over the budget, the retrieve result is cut: its note names the original id, not a copy's.
    const { messages } = await reader.context()
    const { cut } = notedIds(messages)
    expect(cut).toContain(memoryId)
    expect(JSON.stringify(messages)).toContain('returns the whole original')
    // The count it gives is the original's, not the wrapped and escaped result's.
    expect(JSON.stringify(messages)).toContain(`returns the whole original (${page.length} characters)`)
    for (const id of cut) {
      expect(ok<MemoryRetrieveOutput>(await tools.memory_retrieve.execute({ id })).content).toBe(page)
    }
    // An adapter that stores the result as a JSON string (LangChain's tool messages) gets the same.
    const output = JSON.stringify(
      ok<MemoryRetrieveOutput>(await tools.memory_retrieve.execute({ id: memoryId })),
    )
    await writer.append([
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'r3', toolName: 'memory_retrieve', input: { id: memoryId } },
        ],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'r3', toolName: 'memory_retrieve', output }],
      },
    ])
    expect(await contentRecords(store, 'home')).toBe(records)
    expect(notedIds((await reader.context()).messages).cut).toContain(memoryId)
  })

  it('a message whose only part is a citation answers with the content; a part id with that part', async () => {
    const store = inMemoryStore()
    const { writer, tools } = await threads(store, 100_000)
    const page = makePage(10_000, 'cited')
    await writer.append({ role: 'user', content: 'Fetch.' })
    const [, result] = await writer.append(fetchMessages('c', 'https://example.com/', page))
    expect(ok<MemoryRetrieveOutput>(await tools.memory_retrieve.execute({ id: result!.id })).content).toBe(
      page,
    )
    const [two] = await writer.append({
      role: 'assistant',
      content: [
        { type: 'text', text: 'First part.' },
        { type: 'text', text: 'Second part.' },
      ],
    })
    expect(
      ok<MemoryRetrieveOutput>(await tools.memory_retrieve.execute({ id: `${two!.id}#1` })).content,
    ).toBe('Second part.')
    expect(ok<MemoryRetrieveOutput>(await tools.memory_retrieve.execute({ id: two!.id })).content).toBe(
      'First part.\nSecond part.',
    )
    const missing = await tools.memory_retrieve.execute({ id: `${two!.id}#2` })
    expect(missing).toMatchObject({ error: { code: 'STRATA_MEMORY_NOT_FOUND' } })
  })
})

it('a memory slot cut to fit names its summary id, which returns the whole summary', async () => {
  const store = inMemoryStore()
  const { writer, reader, tools } = await threads(store, 2_000)
  await writer.append({ role: 'user', content: 'Go on.' })
  const text = makePage(9_000, 'summary')
  const { lastSeq } = await store.head('home')
  await store.append('home', [makeSummaryItem({ id: 'long-summary', tier: 'long-term', text })], {
    expectedSeq: lastSeq,
  })
  const { messages, stats } = await reader.context()
  expect(stats.contextTokens).toBeGreaterThan(1_700)
  const { cut } = notedIds(messages)
  expect(cut).toEqual(['long-summary'])
  expect(ok<MemoryRetrieveOutput>(await tools.memory_retrieve.execute({ id: 'long-summary' })).content).toBe(
    text,
  )
})
