import { createMemory, inMemoryStore, StrataError, type StrataStore } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { StrataMemory } from '../memory/strata-memory'
import { mastraSummarizer } from '../summarizer/mastra-summarizer'
import { strataAgent } from '../testing/agent-harness'
import { strataErrorOf } from './strata-error-of'

const codeOf = async (run: () => unknown) => {
  try {
    await run()
  } catch (error) {
    return strataErrorOf(error)?.code
  }
  return 'no error'
}

describe('typed errors', () => {
  it('malformed options are STRATA_INVALID_OPTIONS (a bad level STRATA_INVALID_LEVEL) at construction', async () => {
    const memory = createMemory()
    expect(await codeOf(() => new StrataMemory(undefined as never))).toBe('STRATA_INVALID_OPTIONS')
    expect(await codeOf(() => new StrataMemory({ memory: {} as never }))).toBe('STRATA_INVALID_OPTIONS')
    expect(await codeOf(() => new StrataMemory({ memory, history: 'all' as never }))).toBe(
      'STRATA_INVALID_OPTIONS',
    )
    expect(await codeOf(() => new StrataMemory({ memory, hold: { ttlMs: 0 } }))).toBe(
      'STRATA_INVALID_OPTIONS',
    )
    expect(await codeOf(() => new StrataMemory({ memory, hold: 'long' as never }))).toBe(
      'STRATA_INVALID_OPTIONS',
    )
    expect(await codeOf(() => new StrataMemory({ memory, tools: 'yes' as never }))).toBe(
      'STRATA_INVALID_OPTIONS',
    )
    expect(await codeOf(() => new StrataMemory({ memory, system: 7 as never }))).toBe(
      'STRATA_INVALID_OPTIONS',
    )
    expect(await codeOf(() => new StrataMemory({ memory, level: 'room' as never }))).toBe(
      'STRATA_INVALID_LEVEL',
    )
    expect(await codeOf(() => mastraSummarizer({} as never))).toBe('STRATA_INVALID_OPTIONS')
    expect(() => mastraSummarizer({ modle: 'openai/gpt-4o-mini' } as never)).toThrow(
      "mastraSummarizer(): unknown option 'modle' (did you mean 'model'?)",
    )
  })

  it('a missing thread is STRATA_INVALID_THREAD_ID where Mastra expects one to exist', async () => {
    const strata = new StrataMemory({ memory: createMemory() })
    expect(await strata.getThreadById({ threadId: 'nobody/here' })).toBeNull()
    let caught: unknown
    try {
      await strata.updateThread({ id: 'nobody/here', title: 'x' })
    } catch (error) {
      caught = error
    }
    expect(StrataError.isInstance(caught, 'STRATA_INVALID_THREAD_ID')).toBe(true)
    expect((caught as StrataError).details).toMatchObject({ threadId: 'nobody/here', reason: 'not-found' })
    expect(
      await codeOf(() => strata.updateThreadResourceId({ threadId: 'nobody/here', resourceId: 'r' })),
    ).toBe('STRATA_INVALID_THREAD_ID')
  })

  it('what an append-only log cannot do is refused with its reason', async () => {
    const strata = new StrataMemory({ memory: createMemory() })
    for (const run of [
      () => strata.deleteMessages(['m1']),
      () => strata.cloneThread({ sourceThreadId: 't' }),
    ]) {
      let caught: unknown
      try {
        await run()
      } catch (error) {
        caught = error
      }
      expect(StrataError.isInstance(caught, 'STRATA_INVALID_OPTIONS')).toBe(true)
      expect((caught as StrataError).details).toMatchObject({ reason: 'unsupported' })
    }
  })

  it('through an agent: an unmappable thread id, and a call-time error from the processor, stay typed', async () => {
    const { agent } = strataAgent(createMemory(), [{ text: 'never' }])
    expect(await codeOf(() => agent.generate('Hi', { memory: { thread: 'a\uD800b', resource: 'r' } }))).toBe(
      'STRATA_INVALID_THREAD_ID',
    )
    const tight = strataAgent(createMemory({ compaction: { budget: { inputTokens: 50 } } }), [
      { text: 'never' },
    ])
    expect(
      await codeOf(() =>
        tight.agent.generate('word '.repeat(400), { memory: { thread: 't', resource: 'r' } }),
      ),
    ).toBe('STRATA_BUDGET_EXCEEDED')
  })

  it('a store that fails while the answer is stored: Mastra passes it on by its message alone, and strataErrorOf finds the Strata error', async () => {
    const store = inMemoryStore()
    let down = false
    const failing: StrataStore = {
      ...store,
      append: async (threadId, items, options) => {
        const answer = items.some((item) => item.type === 'message' && item.role === 'assistant')
        if (down && answer) {
          throw new StrataError({
            code: 'STRATA_STORE_FAILED',
            message: `Redis did not answer append of thread '${threadId}' within 2000 ms (timeoutMs).`,
            details: { reason: 'timeout', command: 'append', mayHaveLanded: true, threadId },
          })
        }
        return store.append(threadId, items, options)
      },
    }
    const { agent } = strataAgent(createMemory({ store: failing }), [{ text: 'First.' }, { text: 'Second.' }])
    const memory = { thread: 'down', resource: 'r' }
    await agent.generate('One', { memory })
    down = true
    let thrown: unknown
    try {
      await agent.generate('Two', { memory })
    } catch (error) {
      thrown = error
    }
    // Mastra's own wrapping: no cause, no code of ours, the message quoted.
    expect(thrown).toMatchObject({ code: 'PROCESSOR_WORKFLOW_FAILED' })
    expect((thrown as { cause?: unknown }).cause).toBeUndefined()
    const found = strataErrorOf(thrown)
    expect(found?.code).toBe('STRATA_STORE_FAILED')
    expect(found?.details).toMatchObject({ reason: 'timeout', mayHaveLanded: true, threadId: 'down' })
    // An unrelated error that quotes nothing Strata threw is not taken for one.
    expect(
      strataErrorOf(new Error('Processor workflow x failed with status: failed — disk full')),
    ).toBeUndefined()
  })

  it("a thread the store lost is deleted through StrataMemory by the app's id, as the loss's message says; then it starts again", async () => {
    // The Redis store's contract after a loss: every read of the thread throws until deleteThread.
    const store = inMemoryStore()
    const lost = new Set<string>()
    const lostError = (threadId: string) =>
      new StrataError({
        code: 'STRATA_THREAD_LOST',
        message: `Thread '${threadId}' lost history.`,
        details: { threadId, knownSeq: 2, storeSeq: 0 },
      })
    const guard =
      <A extends unknown[], R>(method: (threadId: string, ...rest: A) => Promise<R>) =>
      async (threadId: string, ...rest: A): Promise<R> => {
        if (lost.has(threadId)) throw lostError(threadId)
        return method(threadId, ...rest)
      }
    const losing: StrataStore = {
      ...store,
      head: guard(store.head),
      read: guard(store.read),
      getState: guard(store.getState),
      append: guard(store.append),
      deleteThread: async (threadId) => {
        lost.delete(threadId)
        await store.deleteThread(threadId)
      },
    }
    const { agent, strata } = strataAgent(createMemory({ store: losing }), [
      { text: 'First.' },
      { text: 'Again.' },
    ])
    const memory = { thread: 'olga/chat', resource: 'olga' }
    await agent.generate('One', { memory })
    const strataId = (await strata.thread('olga/chat')).id
    lost.add(strataId)
    expect(await codeOf(() => strata.getThreadById({ threadId: 'olga/chat' }))).toBe('STRATA_THREAD_LOST')
    await strata.deleteThread('olga/chat')
    expect(await strata.getThreadById({ threadId: 'olga/chat' })).toBeNull()
    await agent.generate('Two', { memory })
    expect((await strata.recall({ threadId: 'olga/chat', perPage: false })).messages).toHaveLength(2)
  })
})
