import { createMemory, type StrataStore } from '@strata-memory/core'

/** The thread the CLI tests read: scopes, a tool call with its result, summaries and an archive. */
export const FIXTURE_THREAD = 'user-42.chat-7'

/**
 * Writes {@link FIXTURE_THREAD} on `store`: a project and a task scope (the task closed with a scope
 * summary, the project left open), tool calls with results, a large result in the content channel,
 * several turns, and a forced budget compaction that writes an episodic summary and facts and
 * archives the oldest turns.
 */
export async function writeFixtureThread(store: StrataStore, threadId = FIXTURE_THREAD): Promise<void> {
  let now = Date.UTC(2026, 10, 20, 9, 0, 0)
  const memory = createMemory({
    store,
    clock: () => (now += 1_000),
    compaction: { budget: { inputTokens: 4_000, rawTailTurns: 1 } },
  })
  const thread = await memory.thread(threadId)
  for (let turn = 1; turn <= 4; turn++) {
    await thread.append({
      role: 'user',
      content: `Turn ${turn}: my name is Ana and order A-12${turn} is late.`,
    })
    await thread.append({
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: `call-${turn}`,
          toolName: 'lookup_order',
          input: { orderId: `A-12${turn}` },
        },
      ],
    })
    await thread.append({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `call-${turn}`,
          toolName: 'lookup_order',
          output: { orderId: `A-12${turn}`, status: 'shipped' },
        },
      ],
    })
    await thread.append({ role: 'assistant', content: `Order A-12${turn} shipped yesterday.` })
  }
  await thread.enter('project', { title: 'Garden' })
  await thread.enter('task', { title: 'Plant the trees', instructions: 'Three apple trees by the fence.' })
  await thread.append({ role: 'user', content: 'Plant them now.' })
  await thread.append({
    role: 'assistant',
    content: [
      {
        type: 'tool-call',
        toolCallId: 'call-fetch',
        toolName: 'fetch',
        input: { url: 'https://example.com/trees' },
      },
    ],
  })
  await thread.append({
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call-fetch',
        toolName: 'fetch',
        output: `Apple trees. ${'Spacing 4 m. '.repeat(600)}`,
      },
    ],
  })
  await thread.append({ role: 'assistant', content: 'Planted three apple trees.' })
  await thread.exit({ outcome: 'complete', summary: 'Three apple trees planted by the fence.' })
  await thread.append({ role: 'user', content: 'Now water them.' })
  await thread.compact({ force: true })
}
