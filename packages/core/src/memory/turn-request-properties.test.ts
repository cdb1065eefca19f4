import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CompactionOptions } from '../compaction'
import type { ContextMessage } from '../context'
import type { JsonValue, MessagePart } from '../items'
import { scopeTools } from '../scopes'
import { inMemoryStore } from '../stores'
import { createMemory } from './create-memory'
import type { Thread } from './thread'

// Random agent runs, driven as an adapter drives them: before each model step the context is built
// (and its usage reported, so budget compaction runs), the model's tool calls are stored, the tools
// run (the scope tools through core's own definitions), their results are stored. Checked on every
// context, at the current level and previewed at each level: the turn's request is in it (invariant
// 4), the current scope shows one opening, worded as new unless an automatic transition summarized
// its start, no context is over its budget, and no tool result is without its call nor a call
// without its results (invariant 1).

type Step =
  /** A new turn: the user's request. */
  | { kind: 'user' }
  /** A model step calling a tool with a result of `size` characters. */
  | { kind: 'tool'; size: number }
  /** The model's answer: the end of a turn. */
  | { kind: 'answer' }
  /** `enter_scope` (`project` or `task`, valid or not), alone or beside another tool in one step. */
  | { kind: 'enter'; level: 'project' | 'task'; beside: boolean; oneByOne: boolean }
  | { kind: 'exit'; outcome: 'complete' | 'cancelled' | 'aborted' }

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'user' as const }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('tool' as const),
      size: fc.oneof(fc.integer({ min: 10, max: 400 }), fc.integer({ min: 2_000, max: 16_000 })),
    }),
    weight: 4,
  },
  { arbitrary: fc.constant({ kind: 'answer' as const }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('enter' as const),
      level: fc.constantFrom('project' as const, 'task' as const),
      beside: fc.boolean(),
      oneByOne: fc.boolean(),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('exit' as const),
      outcome: fc.constantFrom('complete' as const, 'cancelled' as const, 'aborted' as const),
    }),
    weight: 2,
  },
)

/** One agent run and the memory it runs with. */
interface Run {
  steps: Step[]
  budget: number
  autoTransitions: boolean
  waterfall: boolean
}

const run: fc.Arbitrary<Run> = fc.record({
  steps: fc.array(step, { minLength: 1, maxLength: 60 }),
  // Small budgets more often: they are where the fit must act.
  budget: fc.oneof(fc.integer({ min: 2_000, max: 4_000 }), fc.integer({ min: 2_000, max: 32_000 })),
  autoTransitions: fc.boolean(),
  waterfall: fc.boolean(),
})

const LEVELS = ['global', 'project', 'task'] as const
const SYSTEM = 'You are an agent. Open a scope for each piece of work.'

const textOf = (message: ContextMessage) =>
  message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')

/** Invariant 1 on a rendered context: each tool message answers exactly the calls of the assistant message before it. */
function expectWholeToolSteps(messages: readonly ContextMessage[]) {
  const ids = (message: ContextMessage | undefined, type: 'tool-call' | 'tool-result') =>
    (message?.content ?? []).flatMap((part) => (part.type === type ? [part.toolCallId] : []))
  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      expect(messages[index - 1]?.role).toBe('assistant')
      expect(ids(message, 'tool-result')).toEqual(ids(messages[index - 1], 'tool-call'))
    } else {
      expect(ids(message, 'tool-result')).toEqual([])
      const calls = ids(message, 'tool-call')
      if (calls.length > 0) expect(ids(messages[index + 1], 'tool-result')).toEqual(calls)
    }
  })
}

/** What the run knows as it goes: the current request, and the scopes an automatic transition continued. */
interface RunState {
  request: string | undefined
  requestId: string | undefined
  continued: Set<string>
  contexts: number
  hiddenRequests: number
  /** Contexts that showed the current scope's opening. */
  openings: number
  /** Contexts the budget fit had to act on: items left out, or parts cut. */
  omitting: number
  /** Contexts that showed a continued opening (after an automatic transition). */
  continuedShown: number
}

async function checkContexts(thread: Thread, state: RunState) {
  for (const level of LEVELS) {
    const current = level === thread.level
    const { messages, stats } = await thread.context({ level, system: SYSTEM })
    state.contexts++
    if (current) await thread.reportUsage({ inputTokens: stats.contextTokens })
    expect(stats.contextTokens).toBeLessThanOrEqual(stats.inputBudget!)
    expectWholeToolSteps(messages)
    const texts = messages.map(textOf)
    // A cut part (a text or a tool result) ends with a `[truncated…]` note.
    const cut = messages.some((message) => JSON.stringify(message.content).includes('[truncated'))
    if (stats.omittedItems! > 0 || cut) state.omitting++
    if (state.request !== undefined) {
      // In view, and the newest request shown: a model reads it as the current one.
      const requests = texts.filter((text) => text.startsWith('Request '))
      expect(requests.at(-1), `${level}: ${texts.join(' | ')}`).toBe(state.request)
      if (!(await thread.view(level)).some((item) => item.id === state.requestId)) state.hiddenRequests++
    }
    // Each scope's opening is shown at most once; the current scope's exactly once.
    const scopes = thread.scopes
    scopes.forEach((scope, at) => {
      const opening = new RegExp(`^(Project|Task)( \\(continued\\))?: ${scope.title}(\n|$)`)
      const shown = texts.filter((text) => opening.test(text))
      if (current && at === scopes.length - 1) {
        expect(shown, texts.join(' | ')).toHaveLength(1)
        state.openings++
        // "(continued)" only for a scope an automatic transition summarized the start of.
        if (shown[0]!.includes('(continued)')) state.continuedShown++
        if (!state.continued.has(scope.title)) expect(shown[0]).not.toContain('(continued)')
      } else expect(shown.length, `${level}: ${texts.join(' | ')}`).toBeLessThanOrEqual(1)
    })
  }
}

async function agentRun({ steps, budget, autoTransitions, waterfall }: Run) {
  let tick = 0
  const compaction: CompactionOptions = {
    budget: { inputTokens: budget },
    ...(autoTransitions
      ? { autoTransitions: { narrowest: { items: 6, toolActions: 3 }, middle: { items: 10, requests: 3 } } }
      : {}),
    ...(waterfall ? { waterfall: { window: 6, every: 4 } } : {}),
  }
  const memory = createMemory({
    store: inMemoryStore(),
    clock: () => 1_700_000_000_000 + tick++,
    generateId: () => `id-${tick++}`,
    compaction,
  })
  const thread = await memory.thread('agent-run')
  const tools = scopeTools(thread, { levels: memory.ladder.levels })
  const state: RunState = {
    request: undefined,
    requestId: undefined,
    continued: new Set(),
    contexts: 0,
    hiddenRequests: 0,
    openings: 0,
    omitting: 0,
    continuedShown: 0,
  }
  memory.on('transition', ({ transition, title }) => {
    if (['size-limit', 'time-limit', 'token-budget'].includes(transition.reason)) state.continued.add(title)
  })
  let calls = 0
  let scopes = 0
  const result = (toolCallId: string, toolName: string, output: JsonValue): MessagePart => ({
    type: 'tool-result',
    toolCallId,
    toolName,
    output,
  })
  const ask = async (request: string) => {
    state.request = request
    state.requestId = (await thread.append({ role: 'user', content: request }))[0]!.id
  }
  await ask('Request 0: build the site.')
  for (const [index, next] of steps.entries()) {
    if (next.kind === 'user') {
      await ask(`Request ${index + 1}: go on with part ${index + 1}.`)
      continue
    }
    // The model is called: the adapter builds its context.
    await checkContexts(thread, state)
    if (next.kind === 'answer') {
      await thread.append({ role: 'assistant', content: `Done with step ${index}.` })
    } else if (next.kind === 'tool') {
      const id = `call-${calls++}`
      await thread.append({
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: id, toolName: 'fetch_page', input: { page: index } }],
      })
      const output = `page ${index}: ${'lorem ipsum dolor '.repeat(Math.ceil(next.size / 18))}`.slice(
        0,
        next.size,
      )
      await thread.append({ role: 'tool', content: [result(id, 'fetch_page', output)] })
    } else if (next.kind === 'enter') {
      const input = { level: next.level, title: `scope-${scopes++}`, instructions: 'Do the part.' }
      const enterId = `call-${calls++}`
      const besideId = `call-${calls++}`
      await thread.append({
        role: 'assistant',
        content: [
          ...(next.beside
            ? [{ type: 'tool-call' as const, toolCallId: besideId, toolName: 'fetch_page', input: {} }]
            : []),
          { type: 'tool-call', toolCallId: enterId, toolName: 'enter_scope', input },
        ],
      })
      const output = (await tools.enter_scope.execute(input)) as unknown as JsonValue
      const results = [
        ...(next.beside ? [result(besideId, 'fetch_page', 'a short page')] : []),
        result(enterId, 'enter_scope', output),
      ]
      if (next.oneByOne) for (const part of results) await thread.append({ role: 'tool', content: [part] })
      else await thread.append({ role: 'tool', content: results })
    } else {
      const input = { outcome: next.outcome, summary: `Part ${index} finished: ${next.outcome}.` }
      const id = `call-${calls++}`
      await thread.append({
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: id, toolName: 'exit_scope', input }],
      })
      const output = (await tools.exit_scope.execute(input)) as unknown as JsonValue
      await thread.append({ role: 'tool', content: [result(id, 'exit_scope', output)] })
    }
  }
  await checkContexts(thread, state)
  await thread.settled()
  await checkContexts(thread, state)
  return state
}

describe('the turn request and scope openings over random agent runs (property)', () => {
  it('every context shows the turn request and one opening of its scope, within its budget, with whole tool steps', async () => {
    const totals = { contexts: 0, hiddenRequests: 0, openings: 0, omitting: 0, continuedShown: 0 }
    await fc.assert(
      fc.asyncProperty(run, async (sample) => {
        const state = await agentRun(sample)
        for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += state[key]
      }),
      { numRuns: 300 },
    )
    // The runs reach what the property is about: contexts whose level view hides the request, scopes
    // shown with their openings (continued ones too), and contexts the budget fit had to cut or leave items out of.
    expect(totals.hiddenRequests).toBeGreaterThan(totals.contexts / 10)
    expect(totals.openings).toBeGreaterThan(totals.contexts / 20)
    expect(totals.continuedShown).toBeGreaterThan(0)
    expect(totals.omitting).toBeGreaterThan(0)
  }, 120_000)
})
