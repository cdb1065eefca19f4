import { createMemory } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { agentThreadOperations, applyOperations, itemsWritten, LEVELS } from './agent-thread.ts'
import { fairiesView } from './fairies-view.ts'

describe('the benchmark workload and its baseline', () => {
  it('writes exactly the requested number of items', async () => {
    for (const size of [144, 1000, 2345]) {
      expect(agentThreadOperations(size).reduce((sum, operation) => sum + itemsWritten(operation), 0)).toBe(
        size,
      )
    }
    const thread = await createMemory().thread('bench.workload')
    await applyOperations(thread, agentThreadOperations(1000))
    expect(await thread.items()).toHaveLength(1000)
    expect(thread.level).toBe('task')
  })

  it('the fairies scan computes the same view as thread.view at every level', async () => {
    const thread = await createMemory().thread('bench.fairies')
    await applyOperations(thread, agentThreadOperations(1500))
    const items = await thread.items()
    for (const level of LEVELS) {
      const expected = (await thread.view(level)).map((item) => item.seq)
      expect(fairiesView(items, level, LEVELS).map((item) => item.seq)).toEqual(expected)
      expect(expected.length).toBeGreaterThan(0)
    }
    // The tail is the same at every size: the open task holds its opening and 20 actions.
    expect(await thread.view('task')).toHaveLength(41)
  })
})
