import { createMemory, type Item, StrataError } from '@strata-memory/core'
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { generated } from '../testing/model-results'
import { strataMiddleware } from './strata-middleware'

const texts = (items: readonly Item[]) =>
  items.flatMap((item) =>
    item.type === 'message' ? item.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])) : [],
  )

/** A thread of 40 messages, stored through the middleware as a route re-sending its history would. */
async function longThread(history: 'auto' | 'full') {
  const memory = createMemory()
  let answer = 0
  const mock = new MockLanguageModelV4({ doGenerate: async () => generated(`a${answer++}`) })
  const model = wrapLanguageModel({ model: mock, middleware: strataMiddleware({ memory, history }) })
  const messages: ModelMessage[] = []
  const send = (sent: ModelMessage[]) =>
    generateText({ model, messages: sent, providerOptions: { strata: { threadId: 'trimmed' } } })
  for (let turn = 0; turn < 20; turn++) {
    messages.push({ role: 'user', content: `q${turn}` })
    const { text } = await send(messages)
    messages.push({ role: 'assistant', content: text })
  }
  const thread = await memory.thread('trimmed')
  return { thread, messages, send, mock }
}

describe('an app that sends only the last messages of a long conversation', () => {
  it("with history 'auto': the new message is stored once, nothing again", async () => {
    const { thread, messages, send, mock } = await longThread('auto')
    expect(await thread.items()).toHaveLength(40)
    await send([...messages.slice(-6), { role: 'user', content: 'q20' }])
    const stored = texts(await thread.items())
    expect(stored).toHaveLength(42)
    expect(stored.slice(-3)).toEqual(['a19', 'q20', 'a20'])
    // The model still gets the thread's context, not only the six messages sent.
    expect(JSON.stringify(mock.doGenerateCalls.at(-1)!.prompt)).toContain('q0')
  })

  it("with history 'full': refused with STRATA_INVALID_MESSAGE, nothing stored or archived", async () => {
    const { thread, messages, send } = await longThread('full')
    const before = await thread.items()
    const error = await send([...messages.slice(-6), { role: 'user', content: 'q20' }]).catch(
      (caught: unknown) => caught,
    )
    expect(StrataError.isInstance(error, 'STRATA_INVALID_MESSAGE')).toBe(true)
    expect(await thread.items()).toEqual(before)
    expect(await thread.status()).toMatchObject({ items: { archived: 0 } })
  })
})
