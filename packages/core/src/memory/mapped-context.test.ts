import { describe, expect, it } from 'vitest'
import type { ContextMessage } from '../context'
import { StrataError } from '../errors'
import { inMemoryStore } from '../stores'
import { createMemory } from './create-memory'
import type { Thread } from './thread'

/** What an adapter makes of a message: a new object of its own, holding nothing of core's. */
const toFramework = (message: ContextMessage) => ({
  from: message.role,
  parts: message.content.map((part) => ({ ...part })),
  ...(message.kind === undefined ? {} : { kind: message.kind }),
})

/** A thread with a system prompt's worth of everything a context renders: scopes, tools, a summary. */
async function thread(budget?: number): Promise<Thread> {
  let tick = 0
  const memory = createMemory({
    store: inMemoryStore(),
    clock: () => 1_700_000_000_000 + tick++,
    generateId: () => `id-${tick++}`,
  })
  const thread = await memory.thread(
    'mapped',
    budget === undefined ? {} : { budget: { inputTokens: budget } },
  )
  await thread.append({ role: 'user', content: 'Plan the release, then draw the chart.' })
  await thread.enter('project', { title: 'Release' })
  for (let turn = 0; turn < 6; turn++) {
    await thread.append({ role: 'user', content: `Step ${turn}: ${'details '.repeat(40)}` })
    await thread.append({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: `call-${turn}`, toolName: 'lookup', input: { turn } }],
    })
    await thread.append({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: `call-${turn}`, toolName: 'lookup', output: { rows: turn } },
      ],
    })
    await thread.append({ role: 'assistant', content: `Done with step ${turn}.` })
  }
  await thread.enter('task', { title: 'Chart' })
  await thread.append({ role: 'user', content: 'Draw it.' })
  await thread.exit({ outcome: 'complete', summary: 'The chart is drawn.' })
  await thread.append({ role: 'user', content: 'And now?' })
  return thread
}

describe('context(options, map)', () => {
  for (const budget of [undefined, 700]) {
    it(`gives map of each message context() gives, with the same stats (${budget === undefined ? 'no budget' : 'a budget'})`, async () => {
      const one = await thread(budget)
      const two = await thread(budget)
      const options = { system: 'You plan releases.', alongside: 'tool: lookup' }
      // Twice: the first context renders the view, the next extends what it rendered.
      for (let round = 0; round < 2; round++) {
        const plain = await one.context(options)
        const mapped = await two.context(options, toFramework)
        expect(mapped.messages).toStrictEqual(plain.messages.map(toFramework))
        expect(mapped.stats).toStrictEqual(plain.stats)
        if (budget !== undefined) expect(plain.stats.omittedItems).toBeGreaterThan(0)
        await one.append({ role: 'assistant', content: `Answer ${round}.` })
        await two.append({ role: 'assistant', content: `Answer ${round}.` })
      }
    })
  }

  it("gives map the context's own messages, whose parts it cannot change", async () => {
    const mapped = await thread()
    const before = await mapped.context()
    const failed = await mapped
      .context({}, (message) => {
        ;(message.content[0] as { text?: string }).text = 'changed'
        return message
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      )
    expect(failed).toBeInstanceOf(TypeError)
    expect(await mapped.context()).toStrictEqual(before)
  })

  it('refuses a map that is not a function (STRATA_INVALID_OPTIONS)', async () => {
    const mapped = await thread()
    const error = await mapped
      .context({}, 'toProvider' as unknown as (message: ContextMessage) => unknown)
      .catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')).toBe(true)
  })
})
