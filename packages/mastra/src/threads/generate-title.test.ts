import { createMemory } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { promptLines, strataAgent } from '../testing/agent-harness'
import { toStrataThreadId } from './thread-id-mapping'

/*
 * Mastra's `generateTitle`: after the response the agent asks its model for a title and saves it
 * with `createThread`; on a StrataMemory the title lands in the thread record and the title call is
 * never stored in the thread.
 */
describe('generateTitle on a StrataMemory', () => {
  for (const where of ['memory', 'call'] as const) {
    it(`titles a new thread after the response (set on the ${where}); the title call is not stored`, async () => {
      const memory = createMemory()
      const { agent, prompts, strata } = strataAgent(
        memory,
        [{ text: 'Sunny in Lisbon.' }, { text: 'Lisbon weather' }],
        where === 'memory' ? { options: { generateTitle: true } } : {},
      )
      await agent.generate('What is the weather in Lisbon?', {
        memory: {
          thread: 'title/chat',
          resource: 'ana',
          ...(where === 'call' ? { options: { generateTitle: true } } : {}),
        },
      })
      // The title is made after the response, in the background.
      await expect
        .poll(async () => (await strata.getThreadById({ threadId: 'title/chat' }))?.title, { timeout: 5_000 })
        .toBe('Lisbon weather')
      // The second model call was the title's, with the conversation as its transcript.
      expect(prompts).toHaveLength(2)
      expect(promptLines(prompts[1]!).join('\n')).toContain('What is the weather in Lisbon?')
      const thread = await memory.thread(await toStrataThreadId('title/chat'))
      const stored = (await thread.items()).map((item) =>
        item.type === 'message' ? `${item.role}: ${JSON.stringify(item.content)}` : item.type,
      )
      expect(stored).toHaveLength(2)
      expect(stored.join('\n')).not.toContain('title')
    })
  }

  it('refuses a generateTitle that is neither a boolean nor an object', () => {
    expect(() => strataAgent(createMemory(), [], { options: { generateTitle: 'yes' as never } })).toThrow(
      expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' }),
    )
  })
})
