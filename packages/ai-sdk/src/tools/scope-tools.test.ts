import { createMemory, type SummaryItem, type TransitionItem } from '@strata-memory/core'
import { generateText, isStepCount, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { strataMiddleware } from '../middleware/strata-middleware'
import { generated, toolCall } from '../testing/model-results'
import { strataTools } from './strata-tools'

const SUMMARY = 'Checked the two warehouses: north holds 41 crates, south holds 17.'

describe('strataTools with scopes: true, driven by a scripted model', () => {
  it('enters a task, works in it, exits with a summary: the next step sees the transition, not the task', async () => {
    const memory = createMemory({ levels: ['global', 'task'] })
    const transitions: { transition: TransitionItem; summary: SummaryItem }[] = []
    memory.on('transition', (event) =>
      transitions.push({ transition: event.transition, summary: event.summary }),
    )
    const script = [
      [
        toolCall('s1', 'enter_scope', {
          level: 'task',
          title: 'Count the crates',
          instructions: 'Ask both warehouses.',
        }),
      ],
      [toolCall('c1', 'count_crates', { warehouse: 'north' })],
      [toolCall('c2', 'count_crates', { warehouse: 'south' })],
      [toolCall('s2', 'exit_scope', { outcome: 'complete', summary: SUMMARY })],
      'There are 58 crates in all.',
    ]
    let step = 0
    const mock = new MockLanguageModelV4({ doGenerate: async () => generated(script[step++]!) })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'crates' }),
    })
    const counted: string[] = []
    const tools = {
      count_crates: tool({
        inputSchema: z.object({ warehouse: z.string() }),
        execute: async ({ warehouse }) => {
          counted.push(warehouse)
          return { warehouse, crates: warehouse === 'north' ? 41 : 17 }
        },
      }),
      ...strataTools(memory, { threadId: 'crates', scopes: true }),
    }
    const result = await generateText({
      model,
      tools,
      messages: [{ role: 'user', content: 'How many crates do we have?' }],
      stopWhen: isStepCount(6),
    })

    expect(result.text).toBe('There are 58 crates in all.')
    expect(counted).toEqual(['north', 'south'])
    const enterResult = result.steps[0]!.toolResults[0]!.output as { level: string; message: string }
    expect(enterResult.level).toBe('task')
    expect(enterResult.message).toContain('hidden until exit_scope')
    const exitResult = result.steps[3]!.toolResults[0]!.output as { level: string; closed: { title: string } }
    expect(exitResult).toMatchObject({
      level: 'global',
      closed: { level: 'task', title: 'Count the crates' },
    })

    // Inside the task the model saw the user's request, then the task's one opening, worded as new.
    const inTask = JSON.stringify(mock.doGenerateCalls[1]!.prompt)
    expect(inTask).toContain('How many crates do we have?')
    expect(inTask.indexOf('How many crates do we have?')).toBeLessThan(
      inTask.indexOf('Task: Count the crates'),
    )
    expect(inTask).not.toContain('(continued)')

    // A transition was emitted and stored at the parent level, with the summary.
    expect(transitions).toHaveLength(1)
    expect(transitions[0]!.transition.level).toBe('global')
    expect(transitions[0]!.summary.level).toBe('global')
    expect(transitions[0]!.summary.text).toBe(SUMMARY)
    const thread = await memory.thread('crates')
    expect(thread.level).toBe('global')
    expect(thread.scopes).toEqual([])
    const stored = await thread.items()
    const transition = stored.find((item) => item.type === 'transition')
    expect(transition).toMatchObject({ level: 'global', id: transitions[0]!.transition.id })

    // The step after exit sees the transition and the summary in place of the task's tool calls.
    const afterExit = JSON.stringify(mock.doGenerateCalls[4]!.prompt)
    expect(afterExit).toContain('How many crates do we have?')
    expect(afterExit).toContain(transitions[0]!.transition.agentFacingMessage)
    expect(afterExit).toContain('north holds 41 crates')
    expect(afterExit).not.toContain('count_crates')
    expect(afterExit).not.toContain('"crates":41')
  })

  it('leaves the scope tools out by default and reports a refused exit to the model', async () => {
    const memory = createMemory()
    expect(Object.keys(strataTools(memory, { threadId: 'plain' })).sort()).toEqual([
      'memory_query',
      'memory_retrieve',
      'memory_store',
    ])
    expect(() => strataTools(memory, { threadId: 'plain', scopes: 'yes' as never })).toThrow(
      /scopes must be true or false/,
    )
    expect(() => strataTools(memory, { threadId: 'plain', scope: true } as never)).toThrow(
      "strataTools(memory, options): unknown option 'scope' (did you mean 'scopes'?)",
    )
    expect(() => strataTools(memory, { threadId: 'plain', resource: 'a@b.com' })).toThrow(
      'Invalid resource id "a@b.com"',
    )
    const script = [[toolCall('x1', 'exit_scope', { summary: 'Nothing.' })], 'No scope was open.']
    let step = 0
    const mock = new MockLanguageModelV4({ doGenerate: async () => generated(script[step++]!) })
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'plain' }),
    })
    const result = await generateText({
      model,
      tools: strataTools(memory, { threadId: 'plain', scopes: true }),
      messages: [{ role: 'user', content: 'Close the task.' }],
      stopWhen: isStepCount(3),
    })
    expect(result.steps[0]!.toolResults[0]!.output).toMatchObject({ error: { code: 'STRATA_NO_OPEN_SCOPE' } })
    expect(JSON.stringify(mock.doGenerateCalls[1]!.prompt)).toContain('STRATA_NO_OPEN_SCOPE')
    expect(result.text).toBe('No scope was open.')
  })
})
