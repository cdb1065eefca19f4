import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import type { MessageInput } from '../items'
import { createMemory, type Memory, type Thread } from '../memory'
import { inMemoryStore, type StrataStore } from '../stores'
import { recordingTracer } from '../telemetry/testing/recording-tracer'
import { SEALING } from './sealed-items'

/*
 * An open seals the items no view can show again (closed scopes' items, a broader item after them) and
 * reads them back only where a path needs them. Whatever it sealed, a thread must read and write
 * exactly as one opened whole: contexts and views at every level, status, tool interactions, items,
 * transcripts, the memory tools, and every write after the open (appends, re-sent histories, scopes,
 * rewinds, failure marks).
 */

type Operation =
  | { kind: 'user' }
  | { kind: 'call'; call: string }
  | { kind: 'result'; call: string }
  | { kind: 'answer' }
  | { kind: 'enter'; level: 'project' | 'task' }
  | { kind: 'exit' }
  | { kind: 'resend' }
  | { kind: 'rewind'; back: number }
  | { kind: 'fail' }

const calls = ['c0', 'c1', 'c2', 'c3']

const history: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'user' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('call' as const), call: fc.constantFrom(...calls) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('result' as const), call: fc.constantFrom(...calls) }),
  },
  { weight: 3, arbitrary: fc.constant({ kind: 'answer' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('enter' as const),
      level: fc.constantFrom('project' as const, 'task' as const),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'exit' as const }) },
)

const followUp: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 6, arbitrary: history },
  { weight: 2, arbitrary: fc.constant({ kind: 'resend' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('rewind' as const), back: fc.integer({ min: 0, max: 12 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'fail' as const }) },
)

const words = (step: number) => `word${step} `.repeat(8)

function message(op: Operation, step: number): MessageInput | undefined {
  switch (op.kind) {
    case 'user':
      return { role: 'user', content: words(step) }
    case 'call':
      return {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: op.call, toolName: 'lookup', input: { step } }],
      }
    case 'result':
      // Every other result is large: it goes to the content store, and its citation reads its call's input.
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: op.call,
            toolName: 'lookup',
            output: step % 2 === 0 ? words(step) : `${words(step)}`.repeat(200),
          },
        ],
      }
    case 'answer':
      return { role: 'assistant', content: words(step) }
    default:
      return undefined
  }
}

/** A memory with a clock and ids that give the same items every time, over `store`. */
function memoryOver(
  store: StrataStore,
  from: number,
  tracer?: ReturnType<typeof recordingTracer>['tracer'],
): Memory {
  let now = 1_700_000_000_000 + from * 1_000
  let id = from
  return createMemory({
    store,
    clock: () => (now += 1_000),
    generateId: () => `id-${String(++id).padStart(6, '0')}`,
    // The lookup tool's citations name its call's input: a late result finds a call an open sealed.
    content: {
      plugins: [
        {
          name: 'lookup',
          matches: (input) => input.source === 'lookup',
          cite: (input) => `lookup of ${JSON.stringify(input.input ?? null)}`,
        },
      ],
    },
    ...(tracer === undefined ? {} : { telemetry: { tracer } }),
  })
}

/** Runs one operation; a refused one (an unknown call, no scope to exit) changes nothing and says why. */
async function run(thread: Thread, op: Operation, step: number): Promise<string> {
  try {
    const input = message(op, step)
    if (input !== undefined) await thread.append(input)
    else if (op.kind === 'enter') await thread.enter(op.level, { title: `scope ${step}` })
    else if (op.kind === 'exit') await thread.exit({ outcome: 'complete', summary: `done ${step}` })
    else if (op.kind === 'resend') {
      // A route that re-sends the whole conversation (as stored) with a new message.
      const resent = (await thread.items()).flatMap((item) =>
        item.type === 'message' && item.scope === undefined && item.role !== 'system'
          ? [{ role: item.role, content: item.content }]
          : [],
      )
      await thread.appendUnseen([...resent, { role: 'user', content: words(step) }], { history: 'full' })
    } else if (op.kind === 'rewind') {
      const { lastSeq } = await thread.status()
      await thread.rewind({ afterSeq: Math.max(0, lastSeq - op.back) })
    } else if (op.kind === 'fail') await thread.markFailed({ reason: `failed ${step}` })
    return 'ok'
  } catch (error) {
    return (error as { code?: string }).code ?? String(error)
  }
}

/** Everything a reader of the thread sees. */
async function reading(thread: Thread) {
  const contexts = []
  for (const level of ['global', 'project', 'task']) contexts.push(await thread.context({ level }))
  const views = []
  for (const level of ['global', 'project', 'task']) views.push(await thread.view(level))
  const items = await thread.items()
  const ids = items.filter((_, index) => index % 7 === 0).map((item) => item.id)
  return {
    contexts,
    views,
    status: await thread.status(),
    interactions: await thread.toolInteractions(),
    items,
    transcript: await thread.transcript(),
    failures: await thread.failures(),
    retrieved: await Promise.all(ids.map((id) => thread.content.retrieve({ id }))),
    queried: await thread.content.query({ text: 'word3' }),
    level: thread.level,
    scopes: thread.scopes,
  }
}

afterEach(() => {
  SEALING.keepConversation = 320
  SEALING.fromItems = 20_000
})

describe('a thread opened with sealed items reads and writes as one opened whole (property)', () => {
  it('at every level, after any history and any writes after the open', async () => {
    let sealedRuns = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(history, { minLength: 15, maxLength: 70 }),
        fc.array(followUp, { minLength: 0, maxLength: 12 }),
        fc.integer({ min: 0, max: 4 }),
        async (operations, after, keep) => {
          // The same history twice: one store is opened sealing, the other whole.
          const stores = [inMemoryStore(), inMemoryStore()]
          for (const store of stores) {
            const memory = memoryOver(store, 0)
            const thread = await memory.thread('t')
            for (const [step, op] of operations.entries()) await run(thread, op, step)
            await thread.settled()
          }
          const { tracer, spans } = recordingTracer()
          SEALING.keepConversation = keep
          SEALING.fromItems = 0
          const sealed = await memoryOver(stores[0]!, 100_000, tracer).thread('t')
          SEALING.keepConversation = Number.MAX_SAFE_INTEGER
          const whole = await memoryOver(stores[1]!, 100_000).thread('t')
          const opened = spans.find((span) => span.name === 'strata.thread.open')
          if (Number(opened?.attributes['strata.open.sealed_items']) > 0) sealedRuns++

          expect(await reading(sealed)).toEqual(await reading(whole))
          for (const [index, op] of after.entries()) {
            const step = operations.length + index
            expect(await run(sealed, op, step)).toBe(await run(whole, op, step))
          }
          expect(await reading(sealed)).toEqual(await reading(whole))
          expect(await stores[0]!.read('t')).toEqual(await stores[1]!.read('t'))
          expect(await stores[0]!.readArchive('t')).toEqual(await stores[1]!.readArchive('t'))
        },
      ),
      { numRuns: 60 },
    )
    // The histories close scopes often enough that most opens seal something.
    expect(sealedRuns).toBeGreaterThan(20)
  }, 240_000)
})
