import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import type { CompactionEndEvent, RewindEvent } from '../events'
import type { Item, MessageInput } from '../items'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'
import type { Summarizer } from '../summarizers'
import { itemTexts } from '../testing'

const user = (text: string): MessageInput => ({ role: 'user', content: text })
const assistant = (text: string): MessageInput => ({ role: 'assistant', content: text })
const call = (toolCallId: string): MessageInput => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId, toolName: 'lookup', input: { id: toolCallId } }],
})
const result = (toolCallId: string, output: string = `found ${toolCallId}`): MessageInput => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId, toolName: 'lookup', output }],
})

/** An item without what the store or the clock assigns; turns numbered by first appearance. */
function comparable(items: readonly Item[]) {
  const turns = new Map<string, number>()
  return items.map(({ id: _id, seq: _seq, ts: _ts, turnId, ...rest }) => {
    if (!turns.has(turnId)) turns.set(turnId, turns.size)
    return { ...rest, turn: turns.get(turnId) }
  })
}

describe('thread.divergence()', () => {
  const history = [user('One'), assistant('Answer 1'), user('Two'), assistant('Answer 2')]

  it('finds the point after a regenerated answer and after an edited message', async () => {
    const thread = await createMemory().thread('divergence')
    await thread.append(history)
    expect(await thread.divergence(history.slice(0, 3), { history: 'full' })).toEqual({
      afterSeq: 3,
      lastKeptSeq: 3,
      dropped: 1,
      matched: 3,
      lastSeq: 4,
    })
    expect(
      await thread.divergence([...history.slice(0, 2), user('Two, edited')], { history: 'full' }),
    ).toEqual({
      afterSeq: 2,
      lastKeptSeq: 2,
      dropped: 2,
      matched: 2,
      lastSeq: 4,
    })
    // The same in 'auto' mode, which tells a re-sent history from the stored tail.
    expect(await thread.divergence(history.slice(0, 3))).toMatchObject({ afterSeq: 3, dropped: 1 })
  })

  it('finds none for a history that continues the thread, new messages only, or nothing in common', async () => {
    const thread = await createMemory().thread('no-divergence')
    await thread.append(history)
    expect(await thread.divergence([...history, user('Three')], { history: 'full' })).toBeUndefined()
    expect(await thread.divergence(history, { history: 'full' })).toBeUndefined()
    expect(await thread.divergence([user('Three')])).toBeUndefined()
    expect(await thread.divergence(history.slice(0, 3), { history: 'new' })).toBeUndefined()
    // The first message edited: nothing stored is kept, so no point anyone could tell.
    expect(await thread.divergence([user('One, edited')], { history: 'full' })).toBeUndefined()
    expect(await thread.divergence([], { history: 'full' })).toBeUndefined()
    const empty = await createMemory().thread('empty')
    expect(await empty.divergence(history, { history: 'full' })).toBeUndefined()
  })

  it('finds none for a short list that repeats stored messages from further back', async () => {
    const thread = await createMemory().thread('repeats')
    await thread.append([...history, user('Three'), assistant('Answer 3')])
    // Two stored messages and a new one: the kept conversation before them is not in the list.
    expect(await thread.divergence([user('Two'), assistant('Answer 2'), user('Four')])).toBeUndefined()
    expect(await thread.divergence([...history, user('Four')], { history: 'full' })).toMatchObject({
      afterSeq: 4,
      dropped: 2,
    })
  })

  it('keeps what the thread wrote between two turns: the point is just before the first dropped message', async () => {
    const thread = await createMemory().thread('between')
    await thread.append(history.slice(0, 2))
    await thread.enter('project', { title: 'Trip' })
    await thread.append(history.slice(2))
    const divergence = await thread.divergence([...history.slice(0, 2), user('Two, edited')], {
      history: 'full',
    })
    expect(divergence).toMatchObject({ afterSeq: 3, lastKeptSeq: 2 })
    await thread.rewind({ afterSeq: divergence!.afterSeq, expectedLastSeq: divergence!.lastSeq })
    expect(itemTexts(await thread.items())).toEqual([
      'user: One',
      'assistant: Answer 1',
      'user: Project: Trip',
    ])
    expect(thread.level).toBe('project')
  })

  it('checks its arguments', async () => {
    const thread = await createMemory().thread('divergence-arguments')
    await expect(thread.divergence('hello' as never)).rejects.toMatchObject({
      code: 'STRATA_INVALID_OPTIONS',
    })
    await expect(thread.divergence([], { history: 'most' as never })).rejects.toMatchObject({
      code: 'STRATA_INVALID_OPTIONS',
    })
  })
})

describe('thread.rewind()', () => {
  it('archives nothing and emits nothing at the end of the log', async () => {
    const memory = createMemory()
    const events: RewindEvent[] = []
    memory.on('rewind', (event) => events.push(event))
    const thread = await memory.thread('no-op')
    await thread.append([user('One'), assistant('Answer 1')])
    expect(await thread.rewind({ afterSeq: 2 })).toEqual({ afterSeq: 2, archived: [], kept: [] })
    expect(events).toEqual([])
    expect(await thread.items()).toHaveLength(2)
  })

  it('shows a large tool result in full again once the answer to it is rewound, as a fresh thread does', async () => {
    const page = 'The manual, page one. '.repeat(400)
    const options = {
      content: { offloadAboveBytes: 1_000 },
      generateId: (
        (n) => () =>
          `id${++n}`
      )(0),
    }
    const rewound = await createMemory(options).thread('citation')
    await rewound.append([
      user('Read the manual'),
      call('m1'),
      result('m1', page),
      assistant('It says hello.'),
    ])
    expect(JSON.stringify((await rewound.context()).messages)).not.toContain(page)

    const answer = (await rewound.items()).at(-1)!
    await rewound.rewind({ afterSeq: answer.seq - 1 })
    const fresh = await createMemory(options).thread('citation-fresh')
    await fresh.append([user('Read the manual'), call('m1'), result('m1', page)])
    const shown = JSON.stringify((await rewound.context()).messages)
    expect(shown).toContain(page)
    expect(shown).toEqual(
      JSON.stringify((await fresh.context()).messages).replaceAll('citation-fresh', 'citation'),
    )
  })

  it('waits for a waterfall summary in flight, and refuses a point it covers', async () => {
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const slow: Summarizer = {
      name: 'slow',
      async summarize(items, options) {
        await gate
        return { summary: `${options.tier} of ${items.length}`, facts: [] }
      },
    }
    const memory = createMemory({ summarizer: slow, compaction: { waterfall: { window: 4, every: 4 } } })
    const thread = await memory.thread('waterfall-race')
    for (let turn = 1; turn <= 5; turn++) await thread.append([user(`Q${turn}`), assistant(`A${turn}`)])
    const rewinding = thread.rewind({ afterSeq: 2 }).catch((error: unknown) => error)
    release()
    const error = await rewinding
    expect(StrataError.isInstance(error, 'STRATA_REWIND_UNSAFE')).toBe(true)
    expect((error as StrataError).details).toMatchObject({ reason: 'compacted' })
    expect(await memory.store.readArchive('waterfall-race')).toEqual([])
  })

  it('a waterfall summary started before another process rewound the thread is not written after it', async () => {
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let started: () => void = () => {}
    const summarizing = new Promise<void>((resolve) => {
      started = resolve
    })
    const slow: Summarizer = {
      name: 'slow',
      async summarize(items, options) {
        started()
        await gate
        return { summary: `${options.tier} of ${items.length}`, facts: [] }
      },
    }
    // Two memories on one store: two processes sharing a thread.
    const store = inMemoryStore()
    const waterfall = { window: 4, every: 4 }
    const firstMemory = createMemory({ store, summarizer: slow, compaction: { waterfall } })
    const first = await firstMemory.thread('two')
    const second = await createMemory({ store, compaction: { waterfall: false } }).thread('two')
    for (let turn = 1; turn <= 4; turn++) await first.append([user(`Q${turn}`), assistant(`A${turn}`)])
    const ends: CompactionEndEvent[] = []
    firstMemory.on('compaction-end', (event) => ends.push(event))
    await first.append(user('Q5'))
    await summarizing
    // The other process regenerates the answer to Q1: everything after Q1 leaves the active log.
    await second.rewind({ afterSeq: 1 })
    release()
    await first.compact()
    await first.context()
    expect(ends.at(-1)).toMatchObject({ trigger: 'waterfall', skipped: 'superseded', itemsWritten: 0 })
    expect((await second.items()).filter((item) => item.type === 'summary')).toEqual([])
    expect(itemTexts(await first.items())).toEqual(['user: Q1'])
  })

  it('equals a fresh thread given the new history, and loses no item, for random histories and points', async () => {
    // A turn: the user's message, maybe a tool call and its result, then the answer.
    const turn = fc.record({ tool: fc.boolean(), answered: fc.boolean() })
    const scenario = fc.record({
      turns: fc.array(turn, { minLength: 1, maxLength: 6 }),
      cut: fc.nat(),
      tail: fc.array(fc.constantFrom('user', 'assistant'), { maxLength: 3 }),
    })
    await fc.assert(
      fc.asyncProperty(scenario, async ({ turns, cut, tail }) => {
        const original: MessageInput[] = []
        turns.forEach(({ tool, answered }, index) => {
          original.push(user(`q${index}`))
          if (tool) original.push(call(`c${index}`), result(`c${index}`))
          if (answered || index < turns.length - 1) original.push(assistant(`a${index}`))
        })
        const keep = 1 + (cut % original.length)
        const incoming = [
          ...original.slice(0, keep),
          ...tail.map((role, index) =>
            role === 'user' ? user(`new q${index}`) : assistant(`new a${index}`),
          ),
        ]

        const memory = createMemory()
        const thread = await memory.thread('property')
        await thread.append(original)
        const before = await thread.items()
        const divergence = await thread.divergence(incoming, { history: 'full' })
        if (divergence !== undefined) {
          expect(divergence.afterSeq).toBe(before[keep]!.seq - 1)
          try {
            await thread.rewind({ afterSeq: divergence.afterSeq, expectedLastSeq: divergence.lastSeq })
          } catch (error) {
            // The only refusal here: a call kept, its result dropped. It changes nothing.
            expect((error as StrataError).details).toMatchObject({ reason: 'tool-call-split' })
            expect(await thread.items()).toEqual(before)
            expect(await memory.store.readArchive('property')).toEqual([])
            return
          }
        } else {
          expect(keep).toBe(original.length)
        }
        await thread.appendUnseen(incoming, { history: 'full' })

        const fresh = await createMemory().thread('fresh')
        await fresh.append(incoming)
        const after = await thread.items()
        expect(comparable(after)).toEqual(comparable(await fresh.items()))
        expect(thread.level).toBe(fresh.level)
        const statuses = (list: Awaited<ReturnType<typeof thread.toolInteractions>>) =>
          list.map((interaction) => [interaction.toolCallId, interaction.status])
        expect(statuses(await thread.toolInteractions())).toEqual(statuses(await fresh.toolInteractions()))
        const everywhere = new Set(
          [...after, ...(await memory.store.readArchive('property'))].map((item) => item.id),
        )
        expect(before.filter((item) => !everywhere.has(item.id))).toEqual([])
        // A reopened thread derives the same state.
        const reopened = await createMemory({ store: memory.store }).thread('property')
        expect(await reopened.items()).toEqual(after)
        expect(await reopened.status()).toEqual(await thread.status())
      }),
      { numRuns: 150 },
    )
  })
})
