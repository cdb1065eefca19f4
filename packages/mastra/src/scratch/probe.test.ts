import { Agent } from '@mastra/core/agent'
import { MastraError } from '@mastra/core/error'
import { it } from 'vitest'
import { weatherTool } from '../testing/agent-harness'
import { scriptedModel } from '../testing/scripted-model'

for (const mode of ['generate', 'stream'] as const)
  it('probe ' + mode, async () => {
    const log: string[] = []
    const p: any = { id: 'p' }
    for (const m of [
      'processInput',
      'processInputStep',
      'processLLMRequest',
      'processOutputStep',
      'processOutputResult',
      'processAPIError',
    ])
      p[m] = async (args: any) => {
        log.push(m + (args.state ? ' state' : ''))
        return m === 'processInput' || m === 'processOutputResult' || m === 'processOutputStep'
          ? args.messageList
          : undefined
      }
    const { model } = scriptedModel([
      { toolCalls: [{ id: 'c1', name: 'weather', input: { city: 'x' } }] },
      () => {
        throw new Error('provider down')
      },
    ])
    const agent = new Agent({
      id: 'a',
      name: 'a',
      instructions: 'x',
      model,
      tools: { weather: weatherTool },
      inputProcessors: [p],
      outputProcessors: [p],
    })
    try {
      if (mode === 'generate') await agent.generate('hello', { maxSteps: 3 })
      else {
        const s = await agent.stream('hello', { maxSteps: 3 })
        await s.consumeStream()
        console.log('stream err', String(s.error))
        await s.text
      }
    } catch (e) {
      log.push('threw ' + String(e))
    }
    console.log(mode, log.join(' | '))
    // a processor that throws
    const q: any = {
      id: 'q',
      processInput: async () => {
        throw new MastraError(
          { id: 'STRATA_THREAD_BUSY', domain: 'AGENT', category: 'USER', text: 'busy' },
          new Error('cause'),
        )
      },
    }
    const agent2 = new Agent({ id: 'b', name: 'b', instructions: 'x', model, inputProcessors: [q] })
    try {
      if (mode === 'generate') await agent2.generate('hello')
      else {
        const s = await agent2.stream('hello')
        await s.consumeStream()
        console.log('stream2 err', s.error)
      }
    } catch (e: any) {
      console.log('thrown', e?.constructor?.name, e?.id, e?.message, String(e?.cause))
    }
  })
