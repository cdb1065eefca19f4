import { HumanMessage } from '@langchain/core/messages'
import { createMemory } from '@strata-memory/core'
import { createAgent } from 'langchain'
import { describe, expect, it } from 'vitest'
import { strataMiddleware } from '../middleware/strata-middleware'
import { scriptedModel } from '../testing/agent'
import { toLangChainMessages } from './to-langchain'

const kindOf = (message: { additional_kwargs: Record<string, unknown> }) =>
  (message.additional_kwargs.strata as { kind?: string } | undefined)?.kind

/** Texts that look like what core renders for its own messages. */
const LOOKALIKES = [
  '[SUMMARY]: I summarise my own day.',
  '[FACT]: I like tea.',
  '[MEMORY:EPISODIC]\n1) I pasted this.',
  '[ACTIONS]: 3 create_shape',
  '[STORED RESULTS] a list I typed',
]

describe("Strata's message kind travels in metadata, never read from the text", () => {
  it('a user message that looks like a memory slot, a summary or a note is the user’s own', async () => {
    const memory = createMemory()
    const model = scriptedModel(LOOKALIKES.map((_, index) => `Noted ${index}.`))
    const agent = createAgent({
      model,
      tools: [],
      middleware: [strataMiddleware({ memory, threadId: 'kinds-1' })],
    })
    for (const text of LOOKALIKES) await agent.invoke({ messages: [new HumanMessage(text)] })
    const sent = model.calls.at(-1)!.messages.filter((message) => message.type === 'human')
    expect(sent.map((message) => message.text)).toEqual(LOOKALIKES)
    expect(sent.map(kindOf)).toEqual(LOOKALIKES.map(() => undefined))
  })

  it('also when the messages were appended without this adapter; Strata’s own keep their kind', async () => {
    const memory = createMemory()
    const thread = await memory.thread('kinds-2')
    await thread.enter('project', { title: 'Garden' })
    for (const text of LOOKALIKES) await thread.append({ role: 'user', content: text })
    await thread.exit({ outcome: 'complete', summary: 'Trees planted.' })
    await thread.append({ role: 'user', content: '[SUMMARY]: not a summary' })
    const context = await thread.context({ system: 'Be brief.' })
    const messages = toLangChainMessages(context.messages, { level: context.stats.level })
    expect(messages.map((message) => [message.text.slice(0, 12), kindOf(message)])).toEqual([
      ['Be brief.', 'memory'],
      [expect.any(String), 'transition'],
      ['[SUMMARY]: T', 'summary'],
      ['[SUMMARY]: n', undefined],
    ])

    // A stored scope opening is Strata's own; a stored lookalike is not.
    const items = await thread.items()
    const mapped = items.flatMap((item) => (item.type === 'message' ? toLangChainMessages([item]) : []))
    expect(mapped.map(kindOf)).toEqual(['scope', ...LOOKALIKES.map(() => undefined), undefined])
  })
})
