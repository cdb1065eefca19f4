import { createMemory, StrataError } from '@strata-memory/core'
import { generateText, isStepCount, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { readCallOptions } from '../middleware/call-options'
import { strataMiddleware } from '../middleware/strata-middleware'
import { generated, toolCall } from '../testing/model-results'
import { strataTools } from './strata-tools'

/** A model that answers each call from a script, in order. */
function scripted(script: Parameters<typeof generated>[0][]) {
  let step = 0
  return new MockLanguageModelV4({ doGenerate: async () => generated(script[step++] ?? 'Done.') })
}

const TEMPLATE = '- Name:\n- Diet:'

describe('strataTools and strataMiddleware with a resource', () => {
  it('adds memory_update_working only with a resource; its description carries the template', () => {
    const memory = createMemory({ resources: { workingMemory: { template: TEMPLATE } } })
    expect(Object.keys(strataTools(memory, { threadId: 'ana.chat-1' }))).not.toContain(
      'memory_update_working',
    )
    const tools = strataTools(memory, { threadId: 'ana.chat-1', resource: 'ana' })
    expect(Object.keys(tools).sort()).toEqual([
      'memory_query',
      'memory_retrieve',
      'memory_store',
      'memory_update_working',
    ])
    expect(tools.memory_update_working.description).toContain(TEMPLATE)
    expect(
      Object.keys(strataTools(memory, { threadId: 'ana.chat-1', resource: 'ana', workingMemory: false })),
    ).not.toContain('memory_update_working')
    expect(
      Object.keys(strataTools(memory, { threadId: 'ana.chat-1', resource: 'ana', scopes: true })),
    ).toEqual(expect.arrayContaining(['memory_update_working', 'enter_scope', 'exit_scope']))
    for (const options of [
      { threadId: 'a', resource: '../x' },
      { threadId: 'a', resource: 'ana', workingMemory: 'yes' },
    ]) {
      let thrown: unknown
      try {
        strataTools(memory, options as never)
      } catch (error) {
        thrown = error
      }
      expect(StrataError.isInstance(thrown), JSON.stringify(options)).toBe(true)
    }
  })

  it("writes the working memory from the model's tool call; the next call's prompt shows it", async () => {
    const memory = createMemory({ resources: { workingMemory: { template: TEMPLATE } } })
    const mock = scripted([
      [toolCall('w1', 'memory_update_working', { content: '- Name: Ana\n- Diet: vegetarian', version: 0 })],
      'Noted: you are vegetarian.',
      'A lentil soup.',
    ])
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'ana.chat-1', resource: 'ana' }),
    })
    const tools = strataTools(memory, { threadId: 'ana.chat-1', resource: 'ana' })
    const first = await generateText({
      model,
      tools,
      messages: [{ role: 'user', content: 'I am Ana and I eat no meat.' }],
      stopWhen: isStepCount(3),
    })
    expect(first.steps[0]!.toolResults[0]!.output).toEqual({ version: 1 })
    // The first call saw the template at version 0, the step after the write the new content.
    expect(JSON.stringify(mock.doGenerateCalls[0]!.prompt)).toContain('[MEMORY:WORKING version=0]')
    const afterWrite = JSON.stringify(mock.doGenerateCalls[1]!.prompt)
    expect(afterWrite).toContain('[MEMORY:WORKING version=1]')
    expect(afterWrite).toContain('Diet: vegetarian')
    expect(await memory.resource('ana').getWorkingMemory()).toMatchObject({
      value: '- Name: Ana\n- Diet: vegetarian',
      version: 1,
    })
    // Another thread of the same resource starts with it in its context.
    await generateText({
      model: wrapLanguageModel({
        model: mock,
        middleware: strataMiddleware({ memory, threadId: 'ana.chat-2', resource: 'ana' }),
      }),
      messages: [{ role: 'user', content: 'Dinner idea?' }],
    })
    expect(JSON.stringify(mock.doGenerateCalls[2]!.prompt)).toContain('Diet: vegetarian')
  })

  it('refuses a stale version with the current version and content, and writes nothing', async () => {
    const memory = createMemory()
    const ana = memory.resource('ana')
    await ana.setWorkingMemory('- Name: Ana', { version: 0 })
    await ana.setWorkingMemory('- Name: Ana\n- City: Porto', { version: 1 })
    const mock = scripted([
      [toolCall('w1', 'memory_update_working', { content: '- Name: Ana B.', version: 1 })],
      'I will merge and retry.',
    ])
    const model = wrapLanguageModel({
      model: mock,
      middleware: strataMiddleware({ memory, threadId: 'ana.chat-1', resource: 'ana' }),
    })
    const result = await generateText({
      model,
      tools: strataTools(memory, { threadId: 'ana.chat-1', resource: 'ana' }),
      messages: [{ role: 'user', content: 'Call me Ana B.' }],
      stopWhen: isStepCount(2),
    })
    const output = result.steps[0]!.toolResults[0]!.output
    expect(output).toMatchObject({
      error: { code: 'STRATA_SEQ_CONFLICT' },
      current: { version: 2, content: '- Name: Ana\n- City: Porto' },
    })
    expect(JSON.stringify(mock.doGenerateCalls[1]!.prompt)).toContain('STRATA_SEQ_CONFLICT')
    expect(await ana.getWorkingMemory()).toMatchObject({ value: '- Name: Ana\n- City: Porto', version: 2 })
  })

  it('binds the thread per call with providerOptions.strata.resourceId; another resource is refused as core refuses it', async () => {
    const memory = createMemory()
    const mock = scripted(['Hello Ana.', 'Hello again.', 'Never sent.'])
    const model = wrapLanguageModel({ model: mock, middleware: strataMiddleware({ memory }) })
    await generateText({
      model,
      messages: [{ role: 'user', content: 'Hi' }],
      providerOptions: { strata: { threadId: 'ana.chat-1', resourceId: 'ana' } },
    })
    expect((await memory.resource('ana').listThreads()).threads.map((entry) => entry.threadId)).toEqual([
      'ana.chat-1',
    ])
    expect((await memory.thread('ana.chat-1')).resource?.id).toBe('ana')
    let thrown: unknown
    try {
      await generateText({
        model,
        maxRetries: 0,
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Hello Ana.' },
          { role: 'user', content: 'Still me' },
        ],
        providerOptions: { strata: { threadId: 'ana.chat-1', resourceId: 'bob' } },
      })
    } catch (error) {
      thrown = error
    }
    expect(StrataError.isInstance(thrown, 'STRATA_INVALID_OPTIONS')).toBe(true)
    expect(mock.doGenerateCalls).toHaveLength(1)
    expect((await (await memory.thread('ana.chat-1')).items()).length).toBe(2)
    expect((await memory.resource('bob').listThreads()).threads).toEqual([])
  })

  it('checks the resource of the middleware and of a call before anything is stored', () => {
    const memory = createMemory()
    const codeOf = (run: () => unknown) => {
      try {
        run()
      } catch (error) {
        return StrataError.isInstance(error) ? error.code : 'not a StrataError'
      }
      return 'nothing thrown'
    }
    expect(codeOf(() => strataMiddleware({ memory, resource: '../x' }))).toBe('STRATA_INVALID_THREAD_ID')
    expect(codeOf(() => readCallOptions({ strata: { resourceId: 7 } }))).toBe('STRATA_INVALID_OPTIONS')
    expect(codeOf(() => readCallOptions({ strata: { resourceId: 'a/b' } }))).toBe('STRATA_INVALID_THREAD_ID')
    expect(readCallOptions({ strata: { threadId: 'ana.chat-1', resourceId: 'ana' } })).toEqual({
      threadId: 'ana.chat-1',
      resourceId: 'ana',
    })
  })
})
