import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { MessageInput } from '../items/message-input'
import type { MessagePart } from '../items/message-part'
import { createMemory } from '../memory'
import { itemTexts } from '../testing'
import { type ComparableMessage, unseenMessages } from './unseen-messages'

type Message = ComparableMessage & { content: MessagePart[] }

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] })
const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] })
const call = (id: string, text?: string): Message => ({
  role: 'assistant',
  content: [
    ...(text === undefined ? [] : [{ type: 'text' as const, text }]),
    { type: 'tool-call', toolCallId: id, toolName: 'lookup', input: { id } },
  ],
})
const result = (id: string, output = `result of ${id}`): Message => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'lookup', output }],
})

/** What a client that keeps only the text of a conversation re-sends of it. */
const textOnly = (messages: readonly Message[]): Message[] =>
  messages.flatMap((message) => {
    if (message.role === 'tool') return []
    const content = message.content.filter((part) => part.type === 'text')
    return content.length === 0 ? [] : [{ ...message, content }]
  })

async function storedThread(messages: readonly Message[]) {
  const thread = await createMemory().thread('lossy')
  await thread.append(messages as MessageInput[])
  return thread
}

const toolLoop = [user('Find n'), call('a1'), result('a1'), assistant('Found it.')]

describe('a history re-sent without the tool steps the thread stored', () => {
  it('aligns past a dropped tool exchange in every mode, so only the new message is unseen', async () => {
    const items = await (await storedThread(toolLoop)).items()
    const incoming = [...textOnly(toolLoop), user('Thanks')]
    expect(incoming).toEqual([user('Find n'), assistant('Found it.'), user('Thanks')])
    for (const history of ['full', 'auto', 'new'] as const) {
      expect(unseenMessages(items, incoming, { history })).toEqual({
        unseen: [user('Thanks')],
        matched: 2,
        aligned: true,
      })
    }
  })

  it('matches an answer that made tool calls by its text alone', async () => {
    const stored = [user('Find n'), call('a1', 'Let me look.'), result('a1'), assistant('Found it.')]
    const items = await (await storedThread(stored)).items()
    const incoming = [...textOnly(stored), user('Thanks')]
    expect(incoming[1]).toEqual(assistant('Let me look.'))
    expect(unseenMessages(items, incoming, { history: 'full' }).unseen).toEqual([user('Thanks')])
  })

  it('leaves the lossless history as it always aligned', async () => {
    const items = await (await storedThread(toolLoop)).items()
    expect(unseenMessages(items, [...toolLoop, user('Thanks')], { history: 'full' })).toEqual({
      unseen: [user('Thanks')],
      matched: 4,
      aligned: true,
    })
  })

  it('never leaves out a user message or an answer: an edited question does not align', async () => {
    const items = await (await storedThread(toolLoop)).items()
    const edited = [user('Find m'), assistant('Found it.'), user('Thanks')]
    for (const history of ['full', 'auto'] as const) {
      // Not aligned: storing the list would store the answer a second time.
      expect(unseenMessages(items, edited, { history })).toMatchObject({ matched: 0, aligned: false })
    }
    const regenerated = [user('Find n'), assistant('Found it, again.'), user('Thanks')]
    expect(unseenMessages(items, regenerated, { history: 'full' }).aligned).toBe(false)
  })

  it('does not skip the tool steps the stored tail ends with: that list may regenerate the answer', async () => {
    const unfinished = [user('Find n'), call('a1'), result('a1')]
    const thread = await storedThread(unfinished)
    const items = await thread.items()
    expect(unseenMessages(items, [user('Find n')], { history: 'full' }).aligned).toBe(false)
    // A regenerate: the thread rewinds to the question and discards the tool steps with the answer.
    expect(await thread.divergence([user('Find n')], { history: 'full' })).toMatchObject({
      dropped: 2,
      matched: 1,
    })
  })

  it('does not align when a new message names a tool call the list left out', async () => {
    const items = await (await storedThread(toolLoop)).items()
    // A second result for the stored call: aligning past the call would store it beside the first.
    const incoming = [user('Find n'), assistant('Found it.'), result('a1', 'n=2')]
    expect(unseenMessages(items, incoming, { history: 'full' }).aligned).toBe(false)
  })

  it('stores only the new message through appendUnseen, and refuses a list that does not continue', async () => {
    const thread = await storedThread(toolLoop)
    await thread.appendUnseen([...textOnly(toolLoop), user('Thanks')] as MessageInput[], { history: 'full' })
    expect(itemTexts(await thread.items())).toEqual([
      'user: Find n',
      'assistant: tool-call',
      'tool: tool-result',
      'assistant: Found it.',
      'user: Thanks',
    ])
    const before = await thread.items()
    const edited = [user('Find m'), assistant('Found it.'), user('Thanks'), user('More')] as MessageInput[]
    for (const history of ['full', 'auto'] as const) {
      await expect(thread.appendUnseen(edited, { history })).rejects.toMatchObject({
        code: 'STRATA_INVALID_MESSAGE',
        message: expect.stringContaining("do not continue thread 'lossy'"),
        details: expect.objectContaining({ reason: 'not-continuing' }),
      })
    }
    expect(await thread.items()).toEqual(before)
  })

  it('rewinds a lossy history that regenerates or edits, to the point a lossless one would', async () => {
    const history = [...toolLoop, user('Two'), assistant('Answer 2')]
    const thread = await storedThread(history)
    const lossy = textOnly(history)
    expect(await thread.divergence(lossy.slice(0, 3), { history: 'full' })).toMatchObject({
      afterSeq: 5,
      dropped: 1,
    })
    expect(
      await thread.divergence([...lossy.slice(0, 2), user('Two, edited')], { history: 'auto' }),
    ).toMatchObject({ afterSeq: 4, dropped: 2, matched: 2 })
  })
})

describe('answers that all read the same', () => {
  const same = [user('go'), assistant('OK'), user('go'), assistant('OK')]

  it('do not hide a regenerate: the stored tail must line up with the end of the list', async () => {
    const thread = await storedThread(same)
    const items = await thread.items()
    const regenerated = same.slice(0, 3)
    expect(unseenMessages(items, regenerated, { history: 'full' }).aligned).toBe(false)
    for (const history of ['full', 'auto'] as const) {
      expect(await thread.divergence(regenerated, { history })).toMatchObject({ afterSeq: 3, dropped: 1 })
    }
    // An edit of the second question. In 'auto' the list also reads as the last exchange re-sent with
    // a new message, as a client that sends only its latest messages would: never a duplicate.
    const edited = [...same.slice(0, 2), user('stop')]
    expect(await thread.divergence(edited, { history: 'full' })).toMatchObject({ afterSeq: 2, dropped: 2 })
    expect(unseenMessages(items, edited, { history: 'auto' }).unseen).toEqual([user('stop')])
    // Continuing histories and new messages do not diverge.
    expect(await thread.divergence([...same, user('go')], { history: 'full' })).toBeUndefined()
    expect(await thread.divergence([user('go')], { history: 'auto' })).toBeUndefined()
  })

  it("take a lone first question in 'auto' for a new message, and in 'full' for a regenerate", async () => {
    const thread = await storedThread([user('go'), assistant('OK')])
    // 'auto' cannot tell useChat regenerating the first answer from a new message that repeats it.
    expect(await thread.divergence([user('go')], { history: 'auto' })).toBeUndefined()
    expect(await thread.divergence([user('go')], { history: 'full' })).toMatchObject({
      afterSeq: 1,
      dropped: 1,
    })
  })
})

describe('re-sent histories, property', () => {
  // A turn: the user's text, tool steps (each maybe with text), then the answer, all from few texts.
  const turn = fc.record({
    text: fc.constantFrom('go', 'again'),
    steps: fc.array(fc.option(fc.constantFrom('Looking.', 'OK'), { nil: undefined }), { maxLength: 2 }),
    answer: fc.constantFrom('OK', 'Done.'),
  })

  it('never stores an item twice and never loses a new one, lossless or text-only, full or auto', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 1, maxLength: 5 }),
        fc.constantFrom('full', 'auto'),
        fc.boolean(),
        fc.constantFrom('go', 'again', 'thanks'),
        async (turns, history, lossy, next) => {
          let id = 0
          const stored: Message[] = []
          for (const { text, steps, answer } of turns) {
            stored.push(user(text))
            for (const step of steps) {
              const callId = `c${id++}`
              stored.push(call(callId, step ?? undefined), result(callId))
            }
            stored.push(assistant(answer))
          }
          const thread = await storedThread(stored)
          const before = await thread.items()
          const incoming = [...(lossy ? textOnly(stored) : stored), user(next)]
          expect(await thread.divergence(incoming, { history })).toBeUndefined()
          await thread.appendUnseen(incoming as MessageInput[], { history })
          const after = await thread.items()
          expect(after.slice(0, before.length)).toEqual(before)
          expect(itemTexts(after.slice(before.length))).toEqual([`user: ${next}`])

          // A regenerate of the last answer: the history up to the last question, its tool steps and
          // answer discarded together.
          const last = stored.findLastIndex((message) => message.role === 'user')
          const upToQuestion = stored.slice(0, last + 1)
          const regenerated = lossy ? textOnly(upToQuestion) : upToQuestion
          const divergence = await (await storedThread(stored)).divergence(regenerated, { history })
          if (last === 0 && history === 'auto') {
            // The one case 'auto' cannot tell from a new message that repeats the first question.
            expect(divergence).toBeUndefined()
          } else {
            expect(divergence).toMatchObject({ dropped: stored.length - 1 - last, afterSeq: last + 1 })
          }
        },
      ),
      { numRuns: 200 },
    )
  })
})
