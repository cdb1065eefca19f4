import { afterEach, describe, expect, it } from 'vitest'
import type { Item, UnsequencedItem } from '../items'
import { createMemory } from '../memory/create-memory'
import type { PolicyDefinition } from './compaction-policy'
import { registerCompactionPolicy } from './policy-registry'

/** What the toy policy was told, in order, with the thread's last seq at that moment. */
type Call = { hook: string; lastSeq: number; detail?: unknown }

/**
 * A fourth policy, made through the same contract and registry as the built-in ones: it notes a fact
 * ahead of every user message, leaves messages saying "secret" out of contexts, and records each call.
 */
function toyPolicy(calls: Call[]): PolicyDefinition {
  return {
    name: 'toy',
    create({ state }) {
      const note = (hook: string, detail?: unknown) =>
        calls.push({ hook, lastSeq: state.log.lastSeq, ...(detail === undefined ? {} : { detail }) })
      let background: Promise<void> | undefined
      let compactions = 0
      return {
        name: 'toy',
        enabled: () => true,
        async beforeAppend(messages) {
          note('beforeAppend', messages.length)
          if (messages[0]?.role !== 'user') return undefined
          const fact = state.factItem({ text: `toy note ${state.log.lastSeq}` })
          return {
            items: [fact as UnsequencedItem<typeof state.level>],
            afterStored: (stored) =>
              note(
                'afterStored',
                stored.map((item) => item.type),
              ),
          }
        },
        afterWrite() {
          note('afterWrite')
          background = new Promise((resolve) => setTimeout(resolve, 20)).then(() => {
            note('background done')
          })
        },
        onUsage: (usage) => note('onUsage', usage),
        beforeContext(view, level) {
          note('beforeContext', level)
          return view.filter((item) => !(item.type === 'message' && JSON.stringify(item).includes('secret')))
        },
        async compact(request) {
          compactions++
          note('compact', request)
        },
        settled: async () => background,
        status: () => ({ toyCompactions: compactions }),
      }
    },
  }
}

const texts = (items: readonly Item[]) =>
  items.flatMap((item) => (item.type === 'message' ? item.content : [])).map((part) => JSON.stringify(part))

describe('a compaction policy registered through the contract', () => {
  let unregister: (() => void) | undefined
  afterEach(() => unregister?.())

  it('is called after a write, before a context, on usage, by hand and when settling, on a real thread', async () => {
    const calls: Call[] = []
    unregister = registerCompactionPolicy(toyPolicy(calls))
    const memory = createMemory()
    const thread = await memory.thread('toy-policy')

    await thread.append({ role: 'user', content: 'Hello, the secret is 42' })
    // Asked inside the write before the message was stored, told after: its fact went in the same write.
    expect(calls.map(({ hook, lastSeq }) => [hook, lastSeq])).toEqual([
      ['beforeAppend', 0],
      ['afterStored', 2],
      ['afterWrite', 2],
    ])
    expect(calls[1]!.detail).toEqual(['fact'])
    expect((await thread.items()).map((item) => item.type)).toEqual(['fact', 'message'])

    await thread.append({ role: 'assistant', content: 'Noted.' })
    expect(calls.slice(3).map((call) => call.hook)).toEqual(['beforeAppend', 'afterWrite'])

    // settled() waits for the policy's background work.
    await thread.settled()
    expect(calls.at(-1)!.hook).toBe('background done')

    calls.length = 0
    const context = await thread.context()
    expect(calls).toEqual([{ hook: 'beforeContext', lastSeq: 3, detail: 'global' }])
    // The policy's narrowing is what the model is sent: the message saying "secret" left the context.
    const sent = context.messages.map((message) => JSON.stringify(message))
    expect(sent.some((message) => message.includes('secret'))).toBe(false)
    expect(sent.some((message) => message.includes('Noted.'))).toBe(true)
    // It left the context only: the log still holds it.
    expect(texts(await thread.items()).some((text) => text.includes('secret'))).toBe(true)

    calls.length = 0
    await thread.reportUsage({ inputTokens: 120 })
    expect(calls).toEqual([
      {
        hook: 'onUsage',
        lastSeq: 3,
        detail: { inputTokens: 120, estimatedTokens: context.stats.contextTokens },
      },
    ])

    calls.length = 0
    // With no built-in policy enabled, compact() by hand runs the toy's alone.
    await thread.compact({ force: true })
    expect(calls).toEqual([{ hook: 'compact', lastSeq: 3, detail: { force: true } }])
    expect((await thread.status()).compaction).toMatchObject({ toyCompactions: 1 })
  })

  it('is called beside the built-in policies, after them', async () => {
    const calls: Call[] = []
    unregister = registerCompactionPolicy(toyPolicy(calls))
    const memory = createMemory({ compaction: { budget: { inputTokens: 4_000 } } })
    const thread = await memory.thread('toy-beside-budget')
    await thread.append({ role: 'user', content: 'Hello' })
    const context = await thread.context()
    // The budget still holds the context to its input budget.
    expect(context.stats.inputBudget).toBe(4_000)
    await thread.compact()
    expect(calls.map((call) => call.hook)).toEqual([
      'beforeAppend',
      'afterStored',
      'afterWrite',
      'beforeContext',
      'compact',
    ])
  })

  it('is taken out again: threads opened afterwards do not call it', async () => {
    const calls: Call[] = []
    registerCompactionPolicy(toyPolicy(calls))()
    const thread = await createMemory().thread('toy-unregistered')
    await thread.append({ role: 'user', content: 'Hello' })
    await thread.context()
    expect(calls).toEqual([])
    expect((await thread.items()).map((item) => item.type)).toEqual(['message'])
    await expect(thread.compact()).rejects.toMatchObject({ code: 'STRATA_INVALID_OPTIONS' })
  })
})
