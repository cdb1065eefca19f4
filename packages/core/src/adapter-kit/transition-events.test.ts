import { describe, expect, it } from 'vitest'
import type { TransitionEvent } from '../events'
import { createMemory } from '../memory'
import { transitionEventData, withThreadTransitions } from './transition-events'

describe('transition events for a UI', () => {
  it('flatten a closed scope into what a stream part shows', async () => {
    const memory = createMemory()
    const events: TransitionEvent[] = []
    memory.on('transition', (event) => events.push(event))
    const thread = await memory.thread('garden')
    await thread.append({ role: 'user', content: 'Plan the garden.' })
    await thread.enter('project', { title: 'Garden' })
    const { transition, summary } = await thread.exit()
    expect(transitionEventData(events[0]!)).toEqual({
      id: transition.id,
      threadId: 'garden',
      fromLevel: 'project',
      level: 'global',
      reason: 'project-complete',
      title: 'Garden',
      text: transition.userFacingMessage,
      summary: summary.text,
      seq: transition.seq,
    })
  })

  it("pass on only one thread's transitions while the work runs, and none after", async () => {
    const memory = createMemory()
    const seen: string[] = []
    const mine = await memory.thread('mine')
    const other = await memory.thread('other')
    const result = await withThreadTransitions(
      memory,
      'mine',
      (event) => seen.push(event.threadId),
      async () => {
        for (const thread of [mine, other]) {
          await thread.enter('project', { title: 'P' })
          await thread.exit()
        }
        return 'done'
      },
    )
    expect(result).toBe('done')
    await mine.enter('project', { title: 'Later' })
    await mine.exit()
    expect(seen).toEqual(['mine'])
    await expect(
      withThreadTransitions(
        memory,
        'mine',
        () => seen.push('x'),
        async () => Promise.reject(new Error('boom')),
      ),
    ).rejects.toThrow('boom')
    await mine.enter('project', { title: 'After a failure' })
    await mine.exit()
    expect(seen).toEqual(['mine'])
  })
})
