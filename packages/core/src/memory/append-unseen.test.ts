import { describe, expect, it } from 'vitest'
import type { MessageInput } from '../items'
import { inMemoryStore } from '../stores'
import { createMemory } from './create-memory'

const user = (text: string): MessageInput => ({ role: 'user', content: text })
const assistant = (text: string): MessageInput => ({ role: 'assistant', content: text })

const texts = (items: readonly { type: string; content?: unknown }[]) =>
  items.flatMap((item) =>
    item.type === 'message' ? [(item.content as { type: string; text?: string }[])[0]?.text] : [],
  )

describe('thread.appendUnseen', () => {
  it('stores only what a re-sent history adds', async () => {
    const thread = await createMemory().thread('resend')
    await thread.appendUnseen([user('Hi')])
    await thread.append(assistant('Hello'))
    const stored = await thread.appendUnseen([user('Hi'), assistant('Hello'), user('Draw a house')])
    expect(texts(stored)).toEqual(['Draw a house'])
    expect(texts(await thread.items())).toEqual(['Hi', 'Hello', 'Draw a house'])
    // Sending nothing new stores nothing and is not an error.
    expect(await thread.appendUnseen([user('Hi'), assistant('Hello'), user('Draw a house')])).toEqual([])
  })

  it('maps framework messages with toMessage, only the ones it compares or stores', async () => {
    type Framework = { role: 'user' | 'assistant'; text: string }
    const mapped: string[] = []
    const toMessage = (message: Framework): MessageInput => {
      mapped.push(message.text)
      return { role: message.role, content: message.text }
    }
    const thread = await createMemory().thread('mapped')
    const history: Framework[] = Array.from({ length: 400 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      text: `m${index}`,
    }))
    await thread.appendUnseen(history, { toMessage })
    mapped.length = 0
    await thread.appendUnseen([...history, { role: 'user', text: 'new' }], { toMessage, history: 'full' })
    expect(texts((await thread.items()).slice(-2))).toEqual(['m399', 'new'])
    // The default window compares 64 stored messages: the rest of the 401 are never mapped.
    expect(mapped.length).toBeLessThan(100)
  })

  it('two calls racing on one thread store a new message once', async () => {
    const thread = await createMemory().thread('race')
    await thread.append([user('Hi'), assistant('Hello')])
    const history = [user('Hi'), assistant('Hello'), user('Next')]
    await Promise.all([thread.appendUnseen(history), thread.appendUnseen(history)])
    expect(texts(await thread.items())).toEqual(['Hi', 'Hello', 'Next'])
  })

  it('two processes racing on one store store a new message once', async () => {
    const store = inMemoryStore()
    const one = await createMemory({ store }).thread('race')
    const two = await createMemory({ store }).thread('race')
    await one.append([user('Hi'), assistant('Hello')])
    const history = [user('Hi'), assistant('Hello'), user('Next')]
    await Promise.all([one.appendUnseen(history), two.appendUnseen(history)])
    expect(texts(await store.read('race'))).toEqual(['Hi', 'Hello', 'Next'])
  })

  it('bad input is a typed error and stores nothing', async () => {
    const thread = await createMemory().thread('bad')
    await expect(thread.appendUnseen('hi' as never)).rejects.toMatchObject({ code: 'STRATA_INVALID_OPTIONS' })
    await expect(thread.appendUnseen([user('a')], { history: 'sometimes' as never })).rejects.toMatchObject({
      code: 'STRATA_INVALID_OPTIONS',
    })
    await expect(thread.appendUnseen([{ role: 'robot', content: 'x' } as never])).rejects.toMatchObject({
      code: expect.stringMatching(/^STRATA_/),
    })
    expect(await thread.items()).toEqual([])
  })
})

describe('a tool result that arrives after a scope was opened', () => {
  it('reopens the scope after the result, so its view still starts with what it is for', async () => {
    const thread = await createMemory().thread('late-result')
    await thread.enter('project', { title: 'Website' })
    await thread.append(user('Start the header task'))
    await thread.append({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'start', toolName: 'start_task', input: { title: 'Header' } },
      ],
    })
    // The tool itself opens the task, then its result (at the call's level, project) is stored.
    await thread.enter('task', { title: 'Header', instructions: 'Blue, 80px.' })
    const [result] = await thread.append({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'start', toolName: 'start_task', output: 'started' }],
    })
    expect(result).toMatchObject({ level: 'project' })
    await thread.append(assistant('Working on the header.'))

    expect(thread.level).toBe('task')
    expect(thread.scopes.map((scope) => [scope.level, scope.title])).toEqual([
      ['project', 'Website'],
      ['task', 'Header'],
    ])
    const task = await thread.view('task')
    // Nothing happened in the task before the result: its one shown opening reads as new.
    expect(texts(task)).toEqual(['Task: Header\n\nBlue, 80px.', 'Working on the header.'])
    // The project keeps the call with its result; the task's items stay out of its view.
    const project = await thread.view('project')
    expect(project.map((item) => item.type === 'message' && item.role)).toEqual([
      'user',
      'user',
      'assistant',
      'tool',
    ])

    // Closing the task covers it from its first opening.
    const { transition } = await thread.exit()
    const opening = task[0]!
    expect(transition.range.fromSeq).toBe(opening.type === 'message' ? opening.scope?.continuedFrom : -1)
    expect(transition.agentFacingMessage).toBe('[ACTIONS]: <1 task actions filtered for brevity>')
    expect(thread.level).toBe('project')
  })
})
