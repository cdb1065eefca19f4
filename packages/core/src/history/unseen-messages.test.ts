import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import type { MessageInput } from '../items/message-input'
import type { MessagePart } from '../items/message-part'
import { createMemory } from '../memory'
import { makeMessageItem, withSeqs } from '../testing/fixtures'
import {
  type ComparableMessage,
  messageFingerprint,
  readConversationTail,
  unseenMessages,
} from './unseen-messages'

type Message = ComparableMessage & { content: MessagePart[] }

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] })
const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] })
const call = (id: string, input: Record<string, unknown> = { id }): Message => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'lookup', input: input as never }],
})
const result = (id: string, output = `result of ${id}`): Message => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'lookup', output }],
})

async function storedThread(messages: readonly Message[]) {
  const thread = await createMemory().thread('unseen')
  if (messages.length > 0) await thread.append(messages as MessageInput[])
  return thread
}

describe('messageFingerprint', () => {
  it('ignores ids, metadata, reasoning, empty text and key order, and joins adjacent text', () => {
    const stored: Message = {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'thinking', meta: { signature: 'x' } },
        { type: 'text', text: 'Hello ' },
        { type: 'text', text: 'world', meta: { aiSdk: { providerOptions: {} } } },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'f', input: { a: 1, b: [1, 2] } },
      ],
    }
    const resent: Message = {
      role: 'assistant',
      content: [
        { type: 'text', text: '' },
        { type: 'text', text: 'Hello world' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'f', input: { b: [1, 2], a: 1 } },
      ],
    }
    expect(messageFingerprint(stored)).toBe(messageFingerprint(resent))
  })

  it('tells apart roles, tool outputs, errors and file contents', () => {
    expect(messageFingerprint(user('a'))).not.toBe(messageFingerprint(assistant('a')))
    expect(messageFingerprint(result('c1', 'x'))).not.toBe(messageFingerprint(result('c1', 'y')))
    const failed: Message = {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: 'x', isError: true }],
    }
    expect(messageFingerprint(failed)).not.toBe(messageFingerprint(result('c1', 'x')))
    const file = (data: string): Message => ({
      role: 'user',
      content: [{ type: 'file', mediaType: 'image/png', data }],
    })
    expect(messageFingerprint(file('aGVsbG8='))).not.toBe(messageFingerprint(file('aGVsbG9=')))
  })
})

describe('unseenMessages', () => {
  it('finds the new message when the whole history is re-sent', async () => {
    const thread = await storedThread([user('Hi'), assistant('Hello')])
    const incoming = [user('Hi'), assistant('Hello'), user('Draw a house')]
    expect(unseenMessages(await thread.items(), incoming)).toEqual({
      unseen: [user('Draw a house')],
      matched: 2,
      aligned: true,
    })
  })

  it('takes a message sent alone as new', async () => {
    const thread = await storedThread([user('Hi'), assistant('Hello')])
    expect(unseenMessages(await thread.items(), [user('Hi')]).unseen).toEqual([user('Hi')])
  })

  it("recognises a tool loop's re-sent step and keeps only the results", async () => {
    const thread = await storedThread([user('Hi'), assistant('Hello'), user('Look it up'), call('c1')])
    const items = await thread.items()
    // The app sent only its new message; the tool loop re-sends it with the step's call and result.
    expect(unseenMessages(items, [user('Look it up'), call('c1'), result('c1')]).unseen).toEqual([
      result('c1'),
    ])
    for (const history of ['full', 'new', 'auto'] as const) {
      const full = [user('Hi'), assistant('Hello'), user('Look it up'), call('c1'), result('c1')]
      expect(unseenMessages(items, full, { history }).unseen).toEqual([result('c1')])
    }
  })

  it('leaves out system messages and Strata’s own items', async () => {
    const thread = await storedThread([user('Hi'), assistant('Hello')])
    await thread.enter('project', { title: 'Garden' })
    await thread.append(user('Plant a tree'))
    await thread.append(assistant('Planted'))
    await thread.exit({ outcome: 'complete' })
    const system: Message = { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] }
    const incoming = [
      system,
      user('Hi'),
      assistant('Hello'),
      user('Plant a tree'),
      assistant('Planted'),
      user('Next'),
    ]
    expect(unseenMessages(await thread.items(), incoming).unseen).toEqual([user('Next')])
  })

  it('resolves the one ambiguity by the history mode', async () => {
    // The last call stored the user message and failed before the answer: the user sends it again.
    const thread = await storedThread([user('Hi'), assistant('Hello'), user('Again')])
    const items = await thread.items()
    expect(unseenMessages(items, [user('Again')]).unseen).toEqual([])
    expect(unseenMessages(items, [user('Again')], { history: 'new' }).unseen).toEqual([user('Again')])
    // 'full' does not take a list that starts mid-history for a re-send.
    expect(unseenMessages(items, [assistant('Hello'), user('Again')], { history: 'full' }).unseen).toEqual([
      assistant('Hello'),
      user('Again'),
    ])
    expect(unseenMessages(items, [assistant('Hello'), user('Again')], { history: 'auto' }).unseen).toEqual([])
  })

  it('aligns with the active tail after older turns were archived', async () => {
    const thread = await storedThread([user('Turn 3'), assistant('Answer 3')])
    const incoming = [user('Turn 1'), assistant('Answer 1'), user('Turn 2'), assistant('Answer 2')]
    incoming.push(user('Turn 3'), assistant('Answer 3'), user('Turn 4'))
    expect(unseenMessages(await thread.items(), incoming, { history: 'full' }).unseen).toEqual([
      user('Turn 4'),
    ])
  })

  it('matches a re-sent tool result and attachment that the content channel stored as citations', async () => {
    const memory = createMemory({ content: { offloadAboveBytes: 100 } })
    const thread = await memory.thread('offloaded')
    const page = 'A long page. '.repeat(50)
    const attachment: Message = {
      role: 'user',
      content: [{ type: 'file', mediaType: 'text/plain', data: btoa(page) }],
    }
    const history = [user('Read the page'), call('c1'), result('c1', page), assistant('Read it'), attachment]
    await thread.append(history as MessageInput[])
    const items = await thread.items()
    // The log holds a citation in place of the page: the output there is no longer the page.
    const stored = items.find((item) => item.type === 'message' && item.role === 'tool')
    expect(JSON.stringify(stored)).not.toContain(page)
    expect(unseenMessages(items, [...history, user('Next')], { history: 'full' }).unseen).toEqual([
      user('Next'),
    ])
    // A cited result is matched by its call id and tool name: ids are unique within a conversation.
    const resent = [
      user('Read the page'),
      call('c1'),
      result('c1', 'the page, re-rendered'),
      assistant('Read it'),
    ]
    expect(unseenMessages(items, [...resent, attachment]).unseen).toEqual([])
    expect(unseenMessages(items, [...resent, user('Other')]).unseen).toEqual([...resent, user('Other')])
  })

  it('compares at most `window` stored messages', async () => {
    const history = Array.from({ length: 40 }, (_, index) => (index % 2 ? assistant('a') : user('u')))
    const thread = await storedThread(history)
    const items = await thread.items()
    // Only the newest 4 are compared: a list that repeats them ends the stored history.
    const incoming = [user('u'), assistant('a'), user('u'), assistant('a'), user('new')]
    expect(unseenMessages(items, incoming, { history: 'full', window: 4 }).unseen).toEqual([user('new')])
    expect(unseenMessages(items, incoming, { history: 'full' }).unseen).toEqual(incoming)
  })

  it('rejects unknown options with typed errors', async () => {
    const items = await (await storedThread([user('Hi')])).items()
    for (const options of [{ history: 'all' as never }, { window: 0 }, { window: 1.5 }]) {
      let thrown: unknown
      try {
        unseenMessages(items, [user('Hi')], options)
      } catch (error) {
        thrown = error
      }
      expect(StrataError.isInstance(thrown, 'STRATA_INVALID_OPTIONS')).toBe(true)
    }
  })

  it('returns a suffix of the incoming conversation, whatever is stored', () => {
    const message = fc.oneof(
      fc.constantFrom('a', 'b').map(user),
      fc.constantFrom('a', 'b').map(assistant),
      fc.constantFrom('c1', 'c2').map((id) => call(id)),
      fc.constantFrom('c1', 'c2').map((id) => result(id)),
    )
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 8 }),
        fc.array(message, { maxLength: 8 }),
        fc.constantFrom('auto', 'full', 'new'),
        (stored, incoming, history) => {
          // Any log, even one a thread would refuse (a result without its call): the function is pure.
          const items = withSeqs(stored.map((message) => makeMessageItem(message)))
          const { unseen, matched } = unseenMessages(items, incoming, { history })
          expect(incoming.slice(incoming.length - unseen.length)).toEqual(unseen)
          expect(matched + unseen.length).toBeLessThanOrEqual(incoming.length)
          if (history === 'new' && incoming.length > 0) expect(unseen.length).toBeGreaterThan(0)
        },
      ),
      { numRuns: 150 },
    )
  })

  it('stores the same log whether each call re-sends the whole history or only the new message', async () => {
    // Calls as a chat makes them: one user message, then the model's answer, which the adapter stores;
    // a tool step adds a call (stored as the answer) and its result (sent with the next step).
    const turn = fc.record({
      text: fc.constantFrom('yes', 'no', 'again'),
      answer: fc.constantFrom('ok', 'yes', 'done'),
      tools: fc.integer({ min: 0, max: 2 }),
    })
    let nextId = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 1, maxLength: 6 }),
        // The mode an app that re-sends everything would pick, and the one an app that sends only new
        // messages would pick.
        fc.constantFrom(['auto', 'auto'], ['full', 'new'], ['full', 'auto'], ['auto', 'new']),
        async (turns, [fullMode, newMode]) => {
          const logs: Message[][] = []
          for (const sendFull of [true, false]) {
            const history = (sendFull ? fullMode : newMode) as 'auto' | 'full' | 'new'
            const thread = await createMemory().thread(`property-${sendFull}`)
            const sent: Message[] = []
            nextId = 0
            for (const { text, answer, tools } of turns) {
              let step = sendFull ? [...sent, user(text)] : [user(text)]
              sent.push(user(text))
              for (let tool = 0; tool <= tools; tool++) {
                const { unseen } = unseenMessages(await thread.items(), step, { history })
                if (unseen.length > 0) await thread.append(unseen as MessageInput[])
                const response = tool < tools ? call(`c${nextId++}`) : assistant(answer)
                await thread.append(response as MessageInput)
                sent.push(response)
                step = [...step, response]
                if (tool < tools) {
                  const toolResult = result(`c${nextId - 1}`)
                  sent.push(toolResult)
                  step = [...step, toolResult]
                }
              }
            }
            const items = await thread.items()
            logs.push(
              items.map((item) => ({ role: (item as Message).role, content: (item as Message).content })),
            )
            expect(logs.at(-1)).toEqual(sent)
          }
          expect(logs[0]).toEqual(logs[1])
        },
      ),
      { numRuns: 60 },
    )
  })

  it('maps only the incoming messages it compares', async () => {
    const thread = await storedThread([user('Hi'), assistant('Hello')])
    const incoming = Array.from({ length: 1_000 }, (_, index) =>
      index % 2 ? assistant(`a${index}`) : user(`u${index}`),
    )
    incoming.push(user('Hi'), assistant('Hello'), user('New'))
    let mapped = 0
    const { unseen } = unseenMessages(await thread.items(), incoming, {
      toComparable: (message) => {
        mapped++
        return message
      },
    })
    expect(unseen).toEqual([user('New')])
    expect(mapped).toBeLessThan(5)
  })
})

describe('readConversationTail', () => {
  it('reads back only the newest items, enough for the window, across scopes and archived seqs', async () => {
    const memory = createMemory()
    const thread = await memory.thread('tail')
    for (let turn = 0; turn < 30; turn++) {
      await thread.enter('project', { title: `Project ${turn}` })
      await thread.append([user(`u${turn}`), assistant(`a${turn}`)] as MessageInput[])
      await thread.exit({ outcome: 'complete', summary: `done ${turn}` })
    }
    const items = await thread.items()
    // Archive some seqs near the end: the tail reads them as gaps.
    const archived = items.slice(-20, -15).map((item) => item.seq)
    await memory.store.archive('tail', { seqs: archived })
    const tail = await readConversationTail(memory.store, 'tail', { window: 8 })
    const active = (await memory.store.read('tail')).map((item) => item.seq)
    const seqs = tail.map((item) => item.seq)
    // A contiguous run of the active log's newest seqs, oldest first, with at least 8 messages.
    expect(seqs).toEqual(active.slice(active.length - seqs.length))
    expect(seqs.length).toBeLessThan(active.length)
    const messages = tail.filter((item) => item.type === 'message' && item.scope === undefined)
    expect(messages.length).toBeGreaterThanOrEqual(8)
    expect(unseenMessages(tail, [user('u29'), assistant('a29'), user('next')]).unseen).toEqual([user('next')])
    expect(await readConversationTail(memory.store, 'empty')).toEqual([])
  })
})
