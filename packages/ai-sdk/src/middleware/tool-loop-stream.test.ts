import { createMemory, type Item } from '@strata-memory/core'
import { isStepCount, type ModelMessage, ToolLoopAgent, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { streamed, toolCall } from '../testing/model-results'
import { strataMiddleware } from './strata-middleware'

/** Each stored message as `turn role: part, part`, parts by text or call id. */
const outline = (items: readonly Item[]) =>
  items.flatMap((item) =>
    item.type === 'message'
      ? [
          `${item.turnId} ${item.role}: ${item.content
            .map((part) =>
              part.type === 'text'
                ? part.text
                : part.type === 'tool-call'
                  ? `call ${part.toolCallId} ${JSON.stringify(part.input)}`
                  : part.type === 'tool-result'
                    ? `result ${part.toolCallId} ${JSON.stringify(part.output)}`
                    : part.type,
            )
            .join(', ')}`,
        ]
      : [],
  )

describe('a streamed ToolLoopAgent run', () => {
  it('stores every call and result once, in order, in its turn, across two runs that re-send the history', async () => {
    const memory = createMemory()
    const script = [
      [toolCall('a1', 'lookup', { key: 'north' })],
      [toolCall('a2', 'lookup', { key: 'south' }), toolCall('a3', 'lookup', { key: 'east' })],
      'North 1, south 5, east 4.',
      [toolCall('b1', 'lookup', { key: 'west' })],
      'West 4.',
    ]
    let call = 0
    const mock = new MockLanguageModelV4({ doStream: async () => streamed(script[call++]!) })
    const agent = new ToolLoopAgent({
      model: wrapLanguageModel({ model: mock, middleware: strataMiddleware({ memory, threadId: 'loop' }) }),
      tools: {
        lookup: tool({
          inputSchema: z.object({ key: z.string() }),
          execute: async ({ key }) => ({ key, value: key.length }),
        }),
      },
      stopWhen: isStepCount(5),
    })

    const history: ModelMessage[] = [{ role: 'user', content: 'Look up north, south and east' }]
    const first = await agent.stream({ messages: history })
    expect(await first.text).toBe('North 1, south 5, east 4.')
    history.push(...(await first.responseMessages), { role: 'user', content: 'And west?' })
    const second = await agent.stream({ messages: history })
    expect(await second.text).toBe('West 4.')

    expect(mock.doStreamCalls).toHaveLength(5)
    const thread = await memory.thread('loop')
    expect(outline(await thread.items())).toEqual([
      'turn_0001 user: Look up north, south and east',
      'turn_0001 assistant: call a1 {"key":"north"}',
      'turn_0001 tool: result a1 {"key":"north","value":5}',
      'turn_0001 assistant: call a2 {"key":"south"}, call a3 {"key":"east"}',
      'turn_0001 tool: result a2 {"key":"south","value":5}, result a3 {"key":"east","value":4}',
      'turn_0001 assistant: North 1, south 5, east 4.',
      'turn_0002 user: And west?',
      'turn_0002 assistant: call b1 {"key":"west"}',
      'turn_0002 tool: result b1 {"key":"west","value":4}',
      'turn_0002 assistant: West 4.',
    ])
    // Each step's model saw the calls and results before it, once, from the thread's context.
    const lastPrompt = JSON.stringify(mock.doStreamCalls.at(-1)!.prompt)
    for (const id of ['a1', 'a2', 'a3', 'b1']) {
      expect(lastPrompt.split(`"toolCallId":"${id}"`)).toHaveLength(3) // one call, one result
    }
  })
})
