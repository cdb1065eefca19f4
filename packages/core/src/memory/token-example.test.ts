import { describe, expect, it } from 'vitest'
import type { MessageInput } from '../items'
import { createMemory } from './create-memory'

/** One executed action: an assistant message holding the tool call and its result, as one item. */
const action = (id: string, toolName: string): MessageInput => ({
  role: 'assistant',
  content: [
    { type: 'tool-call', toolCallId: id, toolName, input: { id, x: 10, y: 20, note: 'x'.repeat(200) } },
    { type: 'tool-result', toolCallId: id, toolName, output: { ok: true, id } },
  ],
})

describe('the token example: a project of 3 tasks × 20 actions + 10 project actions', () => {
  it('shows 16 items at project level instead of 70, and saves tokens', async () => {
    const memory = createMemory()
    const thread = await memory.thread('token-example')
    await thread.enter('project', { title: 'Build a village' })
    let next = 0
    for (let task = 1; task <= 3; task++) {
      for (let index = 0; index < 3; index++) await thread.append(action(`p${next++}`, 'plan_layout'))
      await thread.enter('task', { title: `House ${task}` })
      for (let index = 0; index < 20; index++) {
        await thread.append(action(`t${task}-${index}`, index < 15 ? 'create_shape' : 'update_shape'))
      }
      await thread.exit()
    }
    await thread.append(action(`p${next++}`, 'plan_layout'))

    const actions = (await thread.items()).filter((item) => item.type === 'message' && !item.scope)
    expect(actions).toHaveLength(70)

    const view = await thread.view('project')
    const [opening, ...rest] = view
    // The project's own opening item heads its view; behind it, the 16 items the model needs.
    expect(opening).toMatchObject({ scope: { title: 'Build a village' } })
    expect(rest).toHaveLength(16)
    expect(rest.filter((item) => item.type === 'message')).toHaveLength(10)
    expect(rest.filter((item) => item.type === 'transition')).toHaveLength(3)
    expect(
      rest.filter((item) => item.type === 'summary').map((item) => (item as { text: string }).text),
    ).toEqual(
      Array.from({ length: 3 }, (_, index) =>
        expect.stringContaining(
          `15 create_shape, 5 update_shape. Outcome: task "House ${index + 1}" completed`,
        ),
      ),
    )

    const { messages, stats } = await thread.context({ level: 'project' })
    expect(stats.itemsVisible).toBe(17)
    expect(stats.itemsTotal).toBe(80) // 70 actions + 4 scope openings + 3 × (transition + summary)
    expect(stats.contextTokens).toBeLessThan(stats.totalTokens / 3)
    expect(stats.savedTokens).toBe(stats.totalTokens - stats.contextTokens)
    expect(stats.savedRatio).toBeCloseTo(stats.savedTokens / stats.totalTokens, 10)
    expect(messages.filter((message) => message.role === 'tool')).toHaveLength(10)
  })
})
