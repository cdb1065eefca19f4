import { createMemory } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { strataErrorOf } from '../errors/strata-error-of'
import { promptLines, strataAgent } from '../testing/agent-harness'
import type { ReceivedPrompt } from '../testing/scripted-model'

const template = '# User\n- Name:\n- City:\n'
const systemText = (prompt: ReceivedPrompt) =>
  promptLines(prompt)
    .filter((line) => line.startsWith('system:'))
    .join('\n')

describe('working memory, resource scope (Mastra’s default), template', () => {
  it('the model’s updateWorkingMemory call is stored and shown in the next call’s prompt, on every thread of the resource', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(
      memory,
      [
        {
          toolCalls: [
            {
              id: 'w1',
              name: 'updateWorkingMemory',
              input: { memory: '# User\n- Name: Ana\n- City: Lisbon\n' },
            },
          ],
        },
        { text: 'Nice to meet you, Ana.' },
        { text: 'You live in Lisbon.' },
      ],
      { options: { workingMemory: { enabled: true, template } } },
    )
    await agent.generate('I am Ana from Lisbon.', { memory: { thread: 'ana/one', resource: 'ana' } })
    // The first prompt shows the template and names the tool.
    expect(systemText(prompts[0]!)).toContain('updateWorkingMemory')
    expect(systemText(prompts[0]!)).toContain(template)
    expect(systemText(prompts[0]!)).not.toContain('Name: Ana')

    expect(await strata.getWorkingMemory({ threadId: 'ana/one', resourceId: 'ana' })).toBe(
      '# User\n- Name: Ana\n- City: Lisbon\n',
    )
    // Within the run, the step after the tool call sees it already.
    expect(systemText(prompts[1]!)).toContain('- Name: Ana')

    await agent.generate('Where do I live?', { memory: { thread: 'ana/two', resource: 'ana' } })
    expect(systemText(prompts[2]!)).toMatch(
      /\[MEMORY:WORKING version=1\]\n# User\n- Name: Ana\n- City: Lisbon/,
    )
    // Strata's own versioned API reads the same document.
    expect(await memory.resource('ana').getWorkingMemory()).toMatchObject({
      version: 1,
      value: '# User\n- Name: Ana\n- City: Lisbon\n',
    })
  })

  it('updated by the API (no version: unconditional, after a Strata write), shown in the next call’s prompt', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(memory, [{ text: 'Hello.' }, { text: 'Hi Bea.' }], {
      options: { workingMemory: { enabled: true, template } },
    })
    await agent.generate('Hi', { memory: { thread: 'bea/one', resource: 'bea' } })
    expect(systemText(prompts[0]!)).not.toContain('MEMORY:WORKING')
    await memory.resource('bea').setWorkingMemory('# User\n- Name: B\n', { version: 0 })
    await strata.updateWorkingMemory({
      threadId: 'bea/one',
      resourceId: 'bea',
      workingMemory: '# User\n- Name: Bea\n',
    })
    expect(await strata.getWorkingMemory({ threadId: 'bea/one', resourceId: 'bea' })).toBe(
      '# User\n- Name: Bea\n',
    )
    await agent.generate('Who am I?', { memory: { thread: 'bea/one', resource: 'bea' } })
    expect(systemText(prompts[1]!)).toContain('[MEMORY:WORKING version=2]\n# User\n- Name: Bea')
    expect(await strata.getWorkingMemoryTemplate()).toEqual({ format: 'markdown', content: template })
  })
})

describe('working memory, thread scope, schema', () => {
  const schema = z.object({ name: z.string().optional(), city: z.string().optional() })

  it('the model’s updates merge into the JSON, shown in the thread’s next prompt and not in another thread’s', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(
      memory,
      [
        { toolCalls: [{ id: 'w1', name: 'updateWorkingMemory', input: { memory: '{"name":"Ana"}' } }] },
        { text: 'Hi Ana.' },
        // As the system message asks: a JSON object (JSON text is taken too, above).
        { toolCalls: [{ id: 'w2', name: 'updateWorkingMemory', input: { memory: { city: 'Porto' } } }] },
        { text: 'Porto it is.' },
        { text: 'Your name is Ana.' },
        { text: 'I do not know.' },
      ],
      { options: { workingMemory: { enabled: true, scope: 'thread', schema } } },
    )
    const one = { thread: 'ana/one', resource: 'ana' }
    await agent.generate('I am Ana.', { memory: one })
    expect(systemText(prompts[0]!)).toContain('[MEMORY:WORKING]\n(empty)')
    expect(systemText(prompts[0]!)).toContain('JSON Schema')
    await agent.generate('I moved to Porto.', { memory: one })
    expect(await strata.getWorkingMemory({ threadId: 'ana/one' })).toBe('{"name":"Ana","city":"Porto"}')

    await agent.generate('What is my name?', { memory: one })
    expect(systemText(prompts[4]!)).toContain('[MEMORY:WORKING]\n{"name":"Ana","city":"Porto"}')
    await agent.generate('What is my name?', { memory: { thread: 'ana/two', resource: 'ana' } })
    expect(systemText(prompts[5]!)).toContain('[MEMORY:WORKING]\n(empty)')

    const template = await strata.getWorkingMemoryTemplate()
    expect(template?.format).toBe('json')
    expect(JSON.parse(template!.content as string)).toMatchObject({
      properties: { name: { type: 'string' } },
    })
  })

  it('by the API: a whole JSON write; one outside the schema is refused and writes nothing', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(memory, [{ text: 'Hello.' }, { text: 'Hi Bea.' }], {
      options: { workingMemory: { enabled: true, scope: 'thread', schema } },
    })
    await agent.generate('Hi', { memory: { thread: 'bea/one', resource: 'bea' } })
    await strata.updateWorkingMemory({ threadId: 'bea/one', workingMemory: '{"name":"Bea"}' })
    for (const bad of ['{"name":5}', 'not json']) {
      const error = await strata.updateWorkingMemory({ threadId: 'bea/one', workingMemory: bad }).then(
        () => undefined,
        (caught: unknown) => caught,
      )
      expect(strataErrorOf(error)?.code).toBe('STRATA_INVALID_OPTIONS')
    }
    expect(await strata.getWorkingMemory({ threadId: 'bea/one' })).toBe('{"name":"Bea"}')
    await agent.generate('Who am I?', { memory: { thread: 'bea/one', resource: 'bea' } })
    expect(systemText(prompts[1]!)).toContain('[MEMORY:WORKING]\n{"name":"Bea"}')
  })

  it('a model update outside the schema comes back to the model as an error; nothing is written', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(
      memory,
      [
        { toolCalls: [{ id: 'w1', name: 'updateWorkingMemory', input: { memory: '{"name":7}' } }] },
        { text: 'Sorry.' },
      ],
      { options: { workingMemory: { enabled: true, scope: 'thread', schema } } },
    )
    await agent.generate('I am Ana.', { memory: { thread: 'ana/one', resource: 'ana' } })
    expect(promptLines(prompts[1]!).join('\n')).toContain('result updateWorkingMemory w1')
    expect(await strata.getWorkingMemory({ threadId: 'ana/one' })).toBeNull()
  })
})

describe('working memory per call', () => {
  it('a call’s memory options turn it on (not refused); off, the tool is not offered and nothing is shown', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(memory, [{ text: 'Hello.' }, { text: 'Hello again.' }])
    await agent.generate('Hi', {
      memory: {
        thread: 'ana/one',
        resource: 'ana',
        options: { workingMemory: { enabled: true, scope: 'thread', template } },
      },
    })
    expect(systemText(prompts[0]!)).toContain(`[MEMORY:WORKING]\n(empty)`)
    expect(Object.keys(strata.listTools({ workingMemory: { enabled: true } }))).toContain(
      'updateWorkingMemory',
    )
    expect(Object.keys(strata.listTools())).not.toContain('updateWorkingMemory')
    // A call's experiment is refused under the name the app called, not Mastra's internal listTools().
    expect(() => strata.listTools({ workingMemory: { enabled: true, version: 'vnext' } as never })).toThrow(
      "agent.generate(): workingMemory.version: 'vnext' is a Mastra experiment",
    )
    await agent.generate('Hi', { memory: { thread: 'ana/one', resource: 'ana' } })
    expect(systemText(prompts[1]!)).not.toContain('WORKING')
    expect(await strata.getWorkingMemory({ threadId: 'ana/one', resourceId: 'ana' })).toBeNull()
  })
})

describe('working memory off', () => {
  it('updateWorkingMemory is refused with a typed error saying how to turn it on; getWorkingMemory is null', async () => {
    const memory = createMemory()
    const { agent, strata } = strataAgent(memory, [{ text: 'Hello.' }])
    await agent.generate('Hi', { memory: { thread: 'ana/one', resource: 'ana' } })
    for (const write of [
      () => strata.updateWorkingMemory({ threadId: 'ana/one', resourceId: 'ana', workingMemory: 'x' }),
    ]) {
      const error = await write().then(
        () => undefined,
        (caught: unknown) => caught,
      )
      expect(strataErrorOf(error)?.code).toBe('STRATA_INVALID_OPTIONS')
      expect(strataErrorOf(error)?.message).toContain('workingMemory: { enabled: true }')
    }
    expect(
      await strata.__experimental_updateWorkingMemoryVNext({ threadId: 'ana/one', workingMemory: 'x' }),
    ).toMatchObject({ success: false })
    expect(await strata.getWorkingMemory({ threadId: 'ana/one', resourceId: 'ana' })).toBeNull()
    expect(await memory.resource('ana').getWorkingMemory()).toBeUndefined()
    expect(await strata.getWorkingMemoryTemplate()).toBeNull()
  })
})

describe('a thread moved to another resource', () => {
  it('updateThreadResourceId moves its binding: the next call shows the new resource’s working memory', async () => {
    const memory = createMemory()
    const { agent, strata, prompts } = strataAgent(memory, [{ text: 'Hello.' }, { text: 'Hi Bea.' }], {
      options: { workingMemory: { enabled: true } },
    })
    await memory.resource('ana').setWorkingMemory('Name: Ana', { version: 0 })
    await memory.resource('bea').setWorkingMemory('Name: Bea', { version: 0 })
    await agent.generate('Hi', { memory: { thread: 'shared', resource: 'ana' } })
    expect(systemText(prompts[0]!)).toContain('Name: Ana')
    await strata.updateThreadResourceId({ threadId: 'shared', resourceId: 'bea' })
    await agent.generate('Who am I?', { memory: { thread: 'shared', resource: 'bea' } })
    expect(systemText(prompts[1]!)).toContain('Name: Bea')
    expect(systemText(prompts[1]!)).not.toContain('Name: Ana')
  })
})

describe('a thread bound elsewhere', () => {
  it('a run naming another resource than the thread is bound to is refused before anything is stored', async () => {
    const memory = createMemory()
    const { agent } = strataAgent(memory, [{ text: 'Hello.' }])
    // Another app bound the thread to its own resource.
    await memory.thread('shared', { resource: 'bea' })
    const error = await agent
      .generate('Hi, I am Ana', { memory: { thread: 'shared', resource: 'ana' } })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      )
    expect(strataErrorOf(error)?.code).toBe('STRATA_INVALID_OPTIONS')
    expect(await (await memory.thread('shared')).items()).toEqual([])
    expect((await memory.thread('shared')).resource?.id).toBe('bea')
  })
})

describe('working memory in read-only calls', () => {
  it('a read-only memory on a thread never bound shows the resource’s working memory once, offers no tool', async () => {
    const memory = createMemory()
    await memory.resource('ana').setWorkingMemory('Name: Ana', { version: 0 })
    const { agent, strata, prompts } = strataAgent(memory, [{ text: 'Hi Ana.' }], {
      readOnly: true,
      options: { workingMemory: { enabled: true } },
    })
    await agent.generate('Who am I?', { memory: { thread: 'ana/one', resource: 'ana' } })
    const system = systemText(prompts[0]!)
    expect(system.split('Name: Ana')).toHaveLength(2)
    expect(system).toContain('cannot be changed')
    expect(Object.keys(strata.listTools())).not.toContain('updateWorkingMemory')
  })

  it('a read-only call on a bound thread: core’s slot shows it, once', async () => {
    const memory = createMemory()
    const { agent, prompts } = strataAgent(memory, [{ text: 'Hello.' }, { text: 'Hi Ana.' }], {
      options: { workingMemory: { enabled: true } },
    })
    await agent.generate('Hi', { memory: { thread: 'ana/one', resource: 'ana' } })
    await memory.resource('ana').setWorkingMemory('Name: Ana', { version: 0 })
    await agent.generate('Who am I?', {
      memory: { thread: 'ana/one', resource: 'ana', options: { readOnly: true } },
    })
    const system = systemText(prompts[1]!)
    expect(system.split('Name: Ana')).toHaveLength(2)
    expect(system).toContain('[MEMORY:WORKING version=1]\nName: Ana')
  })
})
