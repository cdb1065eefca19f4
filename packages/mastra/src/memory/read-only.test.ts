import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemory } from '@strata-memory/core'
import { countingStore } from '@strata-memory/core/testing'
import { fileStore } from '@strata-memory/store-file'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { strataErrorOf } from '../errors/strata-error-of'
import { promptLines, strataAgent } from '../testing/agent-harness'
import { scriptedModel } from '../testing/scripted-model'
import { StrataMemory } from './strata-memory'

const memoryOf = { thread: 'ana/garden', resource: 'ana' }

/** Everything the store holds of a thread: items, archive, state, counters, and the thread list. */
async function snapshot(strata: StrataMemory, threadId: string) {
  const store = strata.strata.store
  return JSON.stringify({
    items: await store.read(threadId),
    archive: await store.readArchive(threadId),
    state: await store.getState(threadId),
    head: await store.head(threadId),
    threads: await store.listThreads(),
  })
}

describe('readOnly', () => {
  it('per call: the model gets the thread’s context and the new question; nothing is stored', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(memory, [{ text: 'Plant tomatoes.' }, { text: 'In May.' }])
    await agent.generate('What should I plant?', { memory: memoryOf })
    const thread = await strata.thread(memoryOf.thread)
    const before = await snapshot(strata, thread.id)

    const result = await agent.generate('When?', { memory: { ...memoryOf, options: { readOnly: true } } })

    expect(result.text).toBe('In May.')
    expect(promptLines(prompts[1]!).slice(1)).toEqual([
      'user: What should I plant?',
      'assistant: Plant tomatoes.',
      'user: When?',
    ])
    expect(await snapshot(strata, thread.id)).toBe(before)
    await memory.settled()
    expect(await snapshot(strata, thread.id)).toBe(before)
  })

  it("with history: 'full', a list that does not hold the stored conversation is refused, as a writing call refuses it", async () => {
    const memory = createMemory()
    const answers = ['answer one', 'answer two', 'answer three'].map((text) => ({ text }))
    const { agent, strata, prompts } = strataAgent(memory, [...answers, { text: 'answer new' }], {
      history: 'full',
    })
    const conversation: ({ role: 'user'; content: string } | { role: 'assistant'; content: string })[] = []
    for (const [index, question] of ['one?', 'two?', 'three?'].entries()) {
      conversation.push({ role: 'user', content: question })
      await agent.generate(conversation, { memory: memoryOf })
      conversation.push({ role: 'assistant', content: answers[index]!.text })
    }
    const thread = await strata.thread(memoryOf.thread)
    const before = await snapshot(strata, thread.id)
    const readOnly = { memory: { ...memoryOf, options: { readOnly: true } } }
    const calls = prompts.length
    // Only the conversation's tail and a new message: the stored conversation would be shown twice.
    const error = await agent
      .generate([...conversation.slice(-2), { role: 'user', content: 'new?' }], readOnly)
      .then(
        () => undefined,
        (caught: unknown) => caught,
      )
    expect(strataErrorOf(error)).toMatchObject({
      code: 'STRATA_INVALID_MESSAGE',
      details: { history: 'full', reason: 'not-continuing', readOnly: true },
    })
    expect(prompts).toHaveLength(calls)
    // The whole conversation and a new message: the new message alone follows the context.
    await agent.generate([...conversation, { role: 'user', content: 'new?' }], readOnly)
    expect(promptLines(prompts.at(-1)!).slice(1)).toEqual([
      'user: one?',
      'assistant: answer one',
      'user: two?',
      'assistant: answer two',
      'user: three?',
      'assistant: answer three',
      'user: new?',
    ])
    expect(await snapshot(strata, thread.id)).toBe(before)
  })

  it('per agent (StrataMemory({ readOnly: true })): a new thread is not created, nothing is stored', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(memory, [{ text: 'Hello.' }], { readOnly: true })
    const result = await agent.generate('Hi', { memory: memoryOf })
    expect(result.text).toBe('Hello.')
    expect(promptLines(prompts[0]!).slice(1)).toEqual(['user: Hi'])
    expect(await memory.listThreads()).toEqual([])
    expect(await strata.getThreadById({ threadId: memoryOf.thread })).toBeNull()
  })
})

describe('readOnly and the memory tools', () => {
  it('a read-only call is offered only the tools that read: the model cannot store a note', async () => {
    const memory = createMemory()
    const note = { content: 'a note written in a read-only call' }
    const { agent, strata } = strataAgent(memory, [
      { text: 'Hello.' },
      { toolCalls: [{ id: 'c1', name: 'memory_store', input: note }] },
      { text: 'Done.' },
    ])
    await agent.generate('Hi', { memory: memoryOf })
    const thread = await strata.thread(memoryOf.thread)
    const before = await snapshot(strata, thread.id)
    const reading = ['memory_query', 'memory_retrieve']
    expect(Object.keys(strata.listTools()).sort()).toEqual([
      'memory_query',
      'memory_retrieve',
      'memory_store',
    ])
    expect(Object.keys(strata.listTools({ readOnly: true })).sort()).toEqual(reading)
    const scoped = new StrataMemory({ memory, readOnly: true, tools: { scopes: true } })
    expect(Object.keys(scoped.listTools()).sort()).toEqual(reading)

    const result = await agent.generate('Note this down.', {
      memory: { ...memoryOf, options: { readOnly: true } },
    })
    expect(result.text).toBe('Done.')
    expect(await snapshot(strata, thread.id)).toBe(before)
    expect((await thread.content.query({ text: 'read-only call' })).results).toEqual([])
  })

  it('a readOnly that is not true or false is refused before anything is stored', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(memory, [{ text: 'Hello.' }, { text: 'unused' }])
    await agent.generate('Hi', { memory: memoryOf })
    const thread = await strata.thread(memoryOf.thread)
    const before = await snapshot(strata, thread.id)
    for (const readOnly of ['yes', 1, 'false']) {
      const error = await agent
        .generate('Again', { memory: { ...memoryOf, options: { readOnly: readOnly as never } } })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        )
      expect(strataErrorOf(error)).toMatchObject({
        code: 'STRATA_INVALID_OPTIONS',
        message: `agent.generate(): memory.options.readOnly must be true or false (got ${JSON.stringify(readOnly)}). Nothing was stored.`,
      })
    }
    expect(prompts).toHaveLength(1)
    expect(await snapshot(strata, thread.id)).toBe(before)
  })

  it('a misspelt option of the memory is refused, not ignored (a memory that writes)', () => {
    const options = { memory: createMemory(), redOnly: true }
    expect(() => new StrataMemory(options as never)).toThrow(
      "new StrataMemory(): unknown option 'redOnly' (did you mean 'readOnly'?)",
    )
    expect(() => new StrataMemory({ memory: createMemory(), hold: { ttl: 5 } as never })).toThrow(
      "new StrataMemory({ hold }): unknown option 'ttl' (did you mean 'ttlMs'?)",
    )
  })
})

describe('readOnly on a long thread', () => {
  it('a sealed thread of 20,000 items: the prompt shows a re-sent input once, and no whole log is read', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-mastra-read-only-'))
    try {
      // Closed tasks of many steps, then an exchange: an open of a log this long seals the tasks' steps.
      const options = { compaction: { waterfall: false, autoTransitions: false } } as const
      const writer = new StrataMemory({ memory: createMemory({ store: fileStore({ dir }), ...options }) })
      await writer.saveThread({
        thread: { id: memoryOf.thread, resourceId: 'ana', createdAt: new Date(), updatedAt: new Date() },
      })
      const written = await writer.thread(memoryOf.thread)
      for (let task = 1; task <= 20; task++) {
        await written.enter('task', { title: `task ${task}` })
        await written.append(
          Array.from({ length: 1_000 }, (_, step) => ({
            role: 'assistant' as const,
            content: `step ${step}`,
          })),
        )
        await written.exit({ outcome: 'complete', summary: `task ${task} done` })
      }
      await written.append([
        { role: 'user', content: 'What should I plant?' },
        { role: 'assistant', content: 'Plant tomatoes.' },
      ])
      await writer.strata.settled()

      const counted = countingStore(fileStore({ dir }))
      const memory = createMemory({ store: counted.store, ...options })
      const { agent, strata, prompts } = strataAgent(memory, [
        { text: 'In May.' },
        { text: 'Two centimetres.' },
      ])
      const thread = await strata.thread(memoryOf.thread)
      const head = await counted.store.head(thread.id)
      expect(head.activeCount).toBeGreaterThan(20_000)
      const opened = { ...counted.reads }

      const readOnly = { memory: { ...memoryOf, options: { readOnly: true } } }
      await agent.generate('When?', readOnly)
      // The client re-sends the stored exchange with its new question.
      await agent.generate(
        [
          { role: 'user', content: 'What should I plant?' },
          { role: 'assistant', content: 'Plant tomatoes.' },
          { role: 'user', content: 'How deep?' },
        ],
        readOnly,
      )
      const requests = counted.reads.activeItems - opened.activeItems
      for (const [index, question] of ['When?', 'How deep?'].entries()) {
        const lines = promptLines(prompts[index]!)
        expect(lines.slice(-3)).toEqual([
          'user: What should I plant?',
          'assistant: Plant tomatoes.',
          `user: ${question}`,
        ])
        expect(lines.filter((line) => line === 'user: What should I plant?')).toHaveLength(1)
      }
      expect(await counted.store.head(thread.id)).toEqual(head)
      // The sealed steps stay in the store: every item read back costs them all, the requests read none.
      await thread.items()
      expect(counted.reads.activeItems - opened.activeItems - requests).toBeGreaterThan(19_000)
      expect(requests).toBeLessThan(500)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 60_000)
})

describe('Mastra’s own read-only calls', () => {
  it('structuredOutput with useAgent: only the user’s exchange is stored, the structuring call sees it once', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(memory, [{ text: 'Lisbon in May, by tram.' }])
    const structuring = scriptedModel([{ text: '{"city":"Lisbon","month":"May"}' }])
    const result = await agent.generate('Plan my trip', {
      memory: memoryOf,
      structuredOutput: {
        schema: z.object({ city: z.string(), month: z.string() }),
        model: structuring.model,
        useAgent: true,
      },
    })
    expect(result.object).toEqual({ city: 'Lisbon', month: 'May' })
    expect(prompts).toHaveLength(1)
    const thread = await strata.thread(memoryOf.thread)
    const stored = (await thread.items()).filter((item) => item.type === 'message')
    expect(stored.map((item) => item.role)).toEqual(['user', 'assistant'])
    expect(JSON.stringify(stored)).not.toContain('Extract and structure')
    const structuringLines = promptLines(structuring.prompts[0]!).filter(
      (line) => !line.startsWith('system:'),
    )
    expect(structuringLines.filter((line) => line === 'user: Plan my trip')).toHaveLength(1)
    expect(structuringLines.at(-1)).toContain('Extract and structure')
  })
})
