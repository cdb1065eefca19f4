import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ContextMessage } from '../context'
import type { MessageInput, TransitionItem } from '../items'
import { inMemoryStore } from '../stores'
import { fetchMessages, makePage } from '../testing'
import { gptTokenizer } from '../tokenizer'
import { countMessageTokens } from '../tokens'
import { createMemory } from './create-memory'

// Contexts are counted with the exact o200k tokenizer, not with the counter the memory budgets with.
const exact = gptTokenizer()
const exactTokens = (messages: readonly ContextMessage[]) =>
  messages.reduce((sum, message) => sum + countMessageTokens(message, exact), 0)

/** Every tool call of a context has its results in the message right after it, and no result is alone. */
function assertWholePairs(messages: readonly ContextMessage[]) {
  messages.forEach((message, index) => {
    const calls = message.content.flatMap((part) =>
      part.type === 'tool-call' && part.providerExecuted !== true ? [part.toolCallId] : [],
    )
    if (message.role === 'assistant' && calls.length > 0) {
      const next = messages[index + 1]
      expect(next?.role).toBe('tool')
      const answered = next!.content.map((part) => (part as { toolCallId: string }).toolCallId)
      expect(answered).toEqual(calls)
    }
    if (message.role === 'tool') {
      const previous = messages[index - 1]!
      const asked = previous.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : []))
      for (const part of message.content) expect(asked).toContain((part as { toolCallId: string }).toolCallId)
    }
  })
}

const SYSTEM = 'You are a research agent. Search, fetch pages, take notes; answer with sources.'

describe('a budget inside one long agent turn', () => {
  it('200 tool steps in one request with an 8k budget: every call under it, no usage reported', async () => {
    const memory = createMemory({ compaction: { budget: { inputTokens: 8_000 } } })
    const thread = await memory.thread('loop')
    await thread.append({ role: 'user', content: 'Research the vendors and write a report. My name is Ada.' })
    let worst = 0
    for (let step = 0; step < 200; step++) {
      const { messages, stats } = await thread.context({ system: SYSTEM })
      const tokens = exactTokens(messages)
      worst = Math.max(worst, tokens)
      expect(tokens).toBeLessThanOrEqual(8_000)
      expect(stats.contextTokens).toBeLessThanOrEqual(8_000)
      assertWholePairs(messages)
      // The request stays in every context.
      expect(JSON.stringify(messages)).toContain('My name is Ada.')
      const size = step % 3 === 0 ? 12_000 : 600
      await thread.append(
        fetchMessages(`c${step}`, `https://example.com/${step}`, makePage(size, `p${step}`)),
      )
    }
    // The budget was used, not avoided: contexts came close to it, and compaction archived old steps.
    expect(worst).toBeGreaterThan(2_000)
    expect((await memory.store.readArchive('loop')).length).toBeGreaterThan(100)
    const { compaction } = await thread.status()
    expect(compaction.summaries.episodic.count).toBeGreaterThan(0)
  })

  it('a task of 30 tool actions inside one request is closed by automatic transitions', async () => {
    const memory = createMemory({ compaction: { autoTransitions: {} } })
    const transitions: TransitionItem[] = []
    memory.on('transition', (event) => transitions.push(event.transition))
    const thread = await memory.thread('task-actions')
    await thread.append({ role: 'user', content: 'Draw thirty shapes.' })
    await thread.enter('project', { title: 'Drawing' })
    await thread.enter('task', { title: 'Thirty shapes' })
    for (let action = 0; action < 30; action++) {
      await thread.append([
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: `s${action}`, toolName: 'create_shape', input: { action } },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: `s${action}`, toolName: 'create_shape', output: 'ok' },
          ],
        },
      ])
    }
    // The default narrowest limit is 10 tool actions: closed after the 10th and the 20th, each time
    // with every call answered, and the task goes on.
    expect(transitions.map((transition) => [transition.reason, transition.fromLevel])).toEqual([
      ['size-limit', 'task'],
      ['size-limit', 'task'],
    ])
    const { level } = await thread.status()
    expect(level).toBe('task')
    const { messages } = await thread.context()
    assertWholePairs(messages)
    expect(messages.filter((message) => message.role === 'assistant')).toHaveLength(10)
  })
})

/** One step of a random agent run. */
type Step =
  | { kind: 'search' }
  | { kind: 'fetch'; bytes: number }
  | { kind: 'enter'; level: 'project' | 'task' }
  | { kind: 'exit' }
  | { kind: 'request' }

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Step>({ kind: 'search' }) },
  {
    weight: 5,
    arbitrary: fc.integer({ min: 200, max: 60_000 }).map((bytes): Step => ({ kind: 'fetch', bytes })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Step>({ kind: 'enter', level: 'project' }, { kind: 'enter', level: 'task' }),
  },
  { weight: 1, arbitrary: fc.constant<Step>({ kind: 'exit' }) },
  { weight: 1, arbitrary: fc.constant<Step>({ kind: 'request' }) },
)

describe('random agent runs under a budget (property)', () => {
  it('no context over the budget from the first call, no call without its result, the scope opening always shown', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2_000, max: 32_000 }),
        fc.array(stepArbitrary, { minLength: 5, maxLength: 60 }),
        async (budget, steps) => {
          const memory = createMemory({
            store: inMemoryStore(),
            compaction: { budget: { inputTokens: budget }, autoTransitions: {} },
          })
          const thread = await memory.thread('run')
          await thread.append({ role: 'user', content: 'Find what the vendors charge.' })
          let calls = 0
          const check = async () => {
            const { messages } = await thread.context({ system: SYSTEM })
            expect(exactTokens(messages)).toBeLessThanOrEqual(budget)
            assertWholePairs(messages)
            const scope = (await thread.status()).scopes.at(-1)
            if (scope !== undefined) expect(JSON.stringify(messages)).toContain(scope.title)
          }
          await check()
          for (const step of steps) {
            const status = await thread.status()
            if (step.kind === 'search' || step.kind === 'fetch') {
              const id = `c${calls++}`
              const output =
                step.kind === 'search' ? `3 results for query ${id}` : makePage(step.bytes, `page-${id}`)
              await thread.append(fetchMessages(id, `https://example.com/${id}`, output))
            } else if (step.kind === 'enter') {
              const rank = { global: 0, project: 1, task: 2 }
              if (rank[step.level] > rank[status.level as keyof typeof rank])
                await thread.enter(step.level, { title: `Scope ${calls} ${step.level}` })
            } else if (step.kind === 'exit') {
              if (status.scopes.length > 0) await thread.exit({ summary: `Finished at step ${calls}.` })
            } else {
              await thread.append({ role: 'user', content: `Also check vendor ${calls}.` })
            }
            await check()
          }
        },
      ),
      { numRuns: 25 },
    )
  }, 120_000)
})

describe('the waterfall and a short project view', () => {
  it("summarizing many task items leaves the project's own short view whole, its opening included", async () => {
    const memory = createMemory({ compaction: { waterfall: { window: 16, every: 8 } } })
    const thread = await memory.thread('short-project')
    await thread.enter('project', { title: 'Website redesign', instructions: 'Keep the brand colours.' })
    await thread.append({ role: 'user', content: 'Use teal for the header.' })
    await thread.append({ role: 'assistant', content: 'Teal it is.' })
    for (let task = 0; task < 6; task++) {
      await thread.enter('task', { title: `Page ${task}` })
      await thread.append({ role: 'user', content: `Build page ${task}.` })
      for (let action = 0; action < 5; action++) {
        await thread.append([
          {
            role: 'assistant',
            content: [
              { type: 'tool-call', toolCallId: `t${task}a${action}`, toolName: 'edit', input: { action } },
            ],
          },
          {
            role: 'tool',
            content: [
              { type: 'tool-result', toolCallId: `t${task}a${action}`, toolName: 'edit', output: 'done' },
            ],
          },
        ])
      }
      await thread.exit({ summary: `Page ${task} built.` })
    }
    await thread.compact()
    const { compaction } = await thread.status()
    // The waterfall did summarize: the project's first items are behind its cursor.
    expect(compaction.summaries['short-term'].count).toBeGreaterThan(0)
    expect(compaction.waterfall.summarizedThroughSeq).toBeGreaterThan(40)
    const view = await thread.view()
    const texts = JSON.stringify(view)
    // The project's view (its opening, the user's own project messages, six task transitions with their
    // scope summaries) is 15 items: under the window, so none of it is summarized away.
    expect(view).toHaveLength(15)
    expect(texts).toContain('Website redesign')
    expect(texts).toContain('Use teal for the header.')
    const { messages } = await thread.context()
    expect(JSON.stringify(messages)).toContain('Use teal for the header.')
    expect(JSON.stringify(messages)).toContain('Keep the brand colours.')
  })
})

describe('calibration by reported usage', () => {
  it('keeps free what the provider counts beyond the context, also in a process that opens the thread later', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store, compaction: { budget: { inputTokens: 4_000 } } })
    const thread = await memory.thread('calibrated')
    await thread.append({ role: 'user', content: 'Compare the vendors.' })
    const first = await thread.context({ system: SYSTEM })
    expect(first.stats.inputBudget).toBe(4_000)
    // The provider counted 1 500 tokens more than the memory did (tool definitions, say).
    await thread.reportUsage({ inputTokens: first.stats.contextTokens + 1_500 })
    for (let step = 0; step < 20; step++)
      await thread.append(
        fetchMessages(`c${step}`, `https://example.com/${step}`, makePage(3_000, `p${step}`)),
      )
    const after = await thread.context({ system: SYSTEM })
    expect(after.stats.inputBudget).toBe(2_500)
    expect(after.stats.contextTokens).toBeLessThanOrEqual(2_500)
    // A fresh memory on the same store (another request of a serverless app) reads the calibration back.
    const reopened = await createMemory({ store, compaction: { budget: { inputTokens: 4_000 } } }).thread(
      'calibrated',
    )
    const again = await reopened.context({ system: SYSTEM })
    expect(again.stats.inputBudget).toBe(2_500)
    expect(again.stats.contextTokens).toBeLessThanOrEqual(2_500)
    // A report close to the memory's count gives the whole budget back.
    await reopened.reportUsage({ inputTokens: again.stats.contextTokens })
    expect((await reopened.context({ system: SYSTEM })).stats.inputBudget).toBe(4_000)
  })
})

describe('a re-sent history after compaction inside a turn', () => {
  it('an app that re-sends the whole conversation every step goes on after old steps were archived', async () => {
    const memory = createMemory({ compaction: { budget: { inputTokens: 3_000 } } })
    const thread = await memory.thread('resent')
    const conversation: MessageInput[] = [{ role: 'user', content: 'Read the vendor pages.' }]
    await thread.appendUnseen(conversation, { history: 'full' })
    for (let step = 0; step < 30; step++) {
      conversation.push(
        ...fetchMessages(`c${step}`, `https://example.com/${step}`, makePage(2_000, `p${step}`)),
      )
      // The app (an AI SDK route with history: 'full') sends everything it has, every call.
      await thread.appendUnseen(conversation, { history: 'full' })
      await thread.context()
    }
    // Old steps of the one turn were archived, and every message is stored once.
    const archived = await memory.store.readArchive('resent')
    expect(archived.length).toBeGreaterThan(0)
    const stored = [...archived, ...(await memory.store.read('resent'))].filter(
      (item) => item.type === 'message',
    )
    expect(stored).toHaveLength(conversation.length)
  })
})
