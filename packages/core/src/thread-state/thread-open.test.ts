import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { MessageInput } from '../items'
import { createMemory, type Thread } from '../memory'
import { inMemoryStore, type StrataStore } from '../stores'
import { countingStore, storeWithoutDigest, threadReading } from '../testing/thread-open-suite'
import { tokenEstimator } from '../tokens'
import type { ThreadLog } from './thread-log'
import { loadThreadLog } from './thread-open'

type Operation =
  | { kind: 'user'; id: string | undefined }
  | { kind: 'call'; call: string }
  | { kind: 'result'; call: string }
  | { kind: 'answer' }
  | { kind: 'enter'; level: 'project' | 'task' }
  | { kind: 'exit' }
  | { kind: 'compact' }
  | { kind: 'rewind'; back: number }
  | { kind: 'reopen' }

const ids = ['u0', 'u1', 'u2', 'u3', 'u4', 'u5']
const calls = ['c0', 'c1', 'c2', 'c3', 'c4']

const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('user' as const),
      id: fc.option(fc.constantFrom(...ids), { nil: undefined }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('call' as const), call: fc.constantFrom(...calls) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('result' as const), call: fc.constantFrom(...calls) }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'answer' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('enter' as const),
      level: fc.constantFrom('project' as const, 'task' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'exit' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'compact' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('rewind' as const), back: fc.integer({ min: 0, max: 8 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
)

const words = (seed: number) => `word${seed} `.repeat(30)

function message(op: Operation, step: number): MessageInput | undefined {
  switch (op.kind) {
    case 'user':
      return { role: 'user', content: words(step), ...(op.id === undefined ? {} : { id: op.id }) }
    case 'call':
      return {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: op.call, toolName: 'lookup', input: { step } }],
      }
    case 'result':
      return {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: op.call, toolName: 'lookup', output: words(step) }],
      }
    case 'answer':
      return { role: 'assistant', content: words(step) }
    default:
      return undefined
  }
}

/** Runs one operation; a refused one (a duplicate id, an unknown call, no scope to exit) changes nothing. */
async function run(thread: Thread, store: StrataStore, op: Operation, step: number): Promise<string> {
  try {
    const input = message(op, step)
    if (input !== undefined) await thread.append(input)
    else if (op.kind === 'enter') await thread.enter(op.level, { title: `scope ${step}` })
    else if (op.kind === 'exit') await thread.exit({ outcome: 'complete', summary: `done ${step}` })
    else if (op.kind === 'compact') await thread.compact({ force: true })
    else if (op.kind === 'rewind') {
      const { lastSeq } = await store.head(thread.id)
      await thread.rewind({ afterSeq: Math.max(0, lastSeq - op.back) })
    }
    return 'ok'
  } catch (error) {
    return (error as { code?: string }).code ?? String(error)
  }
}

/** What a log derives from the store: everything an open must give as a full replay would. */
const derived = (log: ThreadLog<string>) => ({
  active: log.unfrozenItems.map((item) => item.seq),
  memory: log.memoryItems.map((item) => item.seq),
  scopes: log.scopes,
  turn: log.turn,
  currentTurn: log.currentTurn,
  request: log.request?.seq,
  archivedCount: log.archivedCount,
  activeCount: log.activeCount,
  rawTokens: log.rawTokens,
  lastSeq: log.lastSeq,
  unfinished: log.unfinishedArchive,
})

async function checks(log: ThreadLog<string>) {
  const asked = [...ids, 'never-used']
  await log.index.resolve(asked, calls)
  return {
    ids: asked.map((id) => log.index.hasId(id)),
    calls: calls.map((call) => log.index.callOrigin(call)),
  }
}

describe('opening with the digest gives what a full replay gives (property)', () => {
  it('contexts, views, counters, turns and append checks, across appends, compactions, rewinds and scopes', async () => {
    const counter = tokenEstimator()
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 20, maxLength: 90 }), async (operations) => {
        const store = inMemoryStore()
        const options = { store, compaction: { budget: { inputTokens: 600 } } } as const
        let memory = createMemory(options)
        let thread = await memory.thread('prop')
        for (const [step, op] of operations.entries()) {
          if (op.kind === 'reopen') {
            await memory.close()
            memory = createMemory(options)
            thread = await memory.thread('prop')
          } else await run(thread, store, op, step)
        }
        await thread.settled()
        const live = await threadReading(thread)
        await memory.close()

        const { store: counted, reads } = countingStore(store)
        const opened = await loadThreadLog<string>(counted, 'prop', counter)
        const replayed = await loadThreadLog<string>(storeWithoutDigest(store), 'prop', counter)
        // Every archive this thread made stored a digest after it: the open read none of the archive.
        expect(reads.readArchive).toBe(0)
        expect(derived(opened)).toEqual(derived(replayed))
        expect(await checks(opened)).toEqual(await checks(replayed))

        const fresh = await createMemory(options).thread('prop')
        const full = await createMemory({ ...options, store: storeWithoutDigest(store) }).thread('prop')
        const reading = await threadReading(fresh)
        expect(reading).toEqual(await threadReading(full))
        expect(reading).toEqual(live)
      }),
      { numRuns: 40 },
    )
  }, 240_000)
})
