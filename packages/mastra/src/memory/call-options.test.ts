import { createMemory } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { strataErrorOf } from '../errors/strata-error-of'
import { strataAgent } from '../testing/agent-harness'

const cases: [string, Record<string, unknown>, RegExp][] = [
  ['observationalMemory', { observationalMemory: true }, /LLM summarizer/],
]

describe('a call’s memory options Strata does not take', () => {
  for (const [name, options, equivalent] of cases) {
    it(`${name}: refused with a typed error naming the Strata equivalent, nothing stored`, async () => {
      const memory = createMemory()
      const { agent, strata, prompts } = strataAgent(memory, [{ text: 'Never sent.' }])
      await strata.saveThread({
        thread: { id: 'ana/old', resourceId: 'ana', createdAt: new Date(), updatedAt: new Date() },
      })
      const before = await memory.store.getState('_.ana_2Fold')
      for (const thread of ['ana/new', 'ana/old']) {
        const error = await agent.generate('Hi', { memory: { thread, resource: 'ana', options } }).then(
          () => undefined,
          (caught: unknown) => caught,
        )
        const strataError = strataErrorOf(error)
        expect(strataError?.code).toBe('STRATA_INVALID_OPTIONS')
        expect(strataError?.message).toContain(name)
        expect(strataError?.message).toMatch(equivalent)
        expect(strataError?.details).toMatchObject({ options: [name] })
      }
      expect(prompts).toHaveLength(0)
      expect(await memory.listThreads()).toEqual(['_.ana_2Fold'])
      expect(await memory.store.read('_.ana_2Fold')).toEqual([])
      expect(await memory.store.getState('_.ana_2Fold')).toEqual(before)
    })
  }

  it('a misspelt option is refused, naming the one it looks like; nothing is stored', async () => {
    const memory = createMemory()
    const { agent, prompts } = strataAgent(memory, [{ text: 'Never sent.' }])
    const error = await agent
      .generate('Hi', {
        memory: { thread: 'ana/new', resource: 'ana', options: { lastMesages: 3 } as never },
      })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      )
    expect(strataErrorOf(error)).toMatchObject({
      code: 'STRATA_INVALID_OPTIONS',
      message:
        "agent.generate(): memory.options has no option 'lastMesages' (did you mean 'lastMessages'?). Nothing was stored.",
      details: { option: 'lastMesages', suggestion: 'lastMessages' },
    })
    expect(prompts).toHaveLength(0)
    expect(await memory.listThreads()).toEqual([])
  })

  it('the options Strata turns off, passed as off, are not refused', async () => {
    const memory = createMemory()
    const { agent } = strataAgent(memory, [{ text: 'Hello.' }])
    const result = await agent.generate('Hi', {
      memory: {
        thread: 'ana/new',
        resource: 'ana',
        options: { lastMessages: false, semanticRecall: false, workingMemory: { enabled: false } },
      },
    })
    expect(result.text).toBe('Hello.')
  })
})
