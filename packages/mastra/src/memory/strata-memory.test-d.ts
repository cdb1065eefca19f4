import { Agent } from '@mastra/core/agent'
import type { MastraMemory } from '@mastra/core/memory'
import { createMemory, type Thread } from '@strata-memory/core'
import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { scriptedModel } from '../testing/scripted-model'
import { StrataMemory } from './strata-memory'

describe('public types', () => {
  it('is a MastraMemory an Agent takes, whose level is one of the memory’s levels', () => {
    const memory = createMemory({ levels: ['global', 'session', 'interaction'] as const })
    const strata = new StrataMemory({ memory, level: 'session' })
    expectTypeOf(strata).toMatchTypeOf<MastraMemory>()
    new Agent({ id: 'a', name: 'a', instructions: 'x', model: scriptedModel([]).model, memory: strata })
    // @ts-expect-error: 'task' is not a level of this memory
    new StrataMemory({ memory, level: 'task' })
  })

  it('opens the Strata thread of a Mastra thread id, typed by the ladder', () => {
    const strata = new StrataMemory({ memory: createMemory({ levels: ['global', 'task'] as const }) })
    expectTypeOf(strata.thread('ana@example.com/1')).toEqualTypeOf<Promise<Thread<'global' | 'task'>>>()
  })

  it('takes Mastra’s memory options as Mastra’s Memory does: working memory by template or schema, recall, lastMessages', () => {
    const memory = createMemory()
    new StrataMemory({
      memory,
      options: {
        workingMemory: { enabled: true, scope: 'thread', schema: z.object({ name: z.string() }) },
        semanticRecall: { topK: 3, messageRange: { before: 1, after: 2 }, scope: 'resource' },
        lastMessages: 20,
      },
    })
    new StrataMemory({
      memory,
      options: { workingMemory: { enabled: true, template: '# User' }, semanticRecall: true },
    })
    const both = { enabled: true, template: '# User', schema: z.object({}) } as const
    // @ts-expect-error: a template or a schema, not both
    new StrataMemory({ memory, options: { workingMemory: both } })
    // @ts-expect-error: the scope is 'thread' or 'resource'
    new StrataMemory({ memory, options: { workingMemory: { enabled: true, scope: 'user' } } })
  })
})
