import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { inMemoryStore } from '../stores'
import { storedThread } from '../testing/stored-thread'
import { createMemory } from './create-memory'
import { MAX_REQUEST_FAILURES } from './request-failures'

async function failure(call: () => Promise<unknown>): Promise<unknown> {
  return call().then(
    () => {
      throw new Error('expected the call to fail')
    },
    (error: unknown) => error,
  )
}

describe('thread.markFailed()', () => {
  it('marks the turn request in the state, not the log; a second memory on the store reads it', async () => {
    const store = inMemoryStore()
    const thread = await createMemory({ store }).thread('failed-1')
    const [question] = await thread.append({ role: 'user', content: 'Summarize the ledger' })
    const logBefore = await store.read('failed-1')
    const mark = await thread.markFailed({ reason: 'Overloaded', code: '529' })
    expect(mark).toMatchObject({
      itemId: question!.id,
      seq: question!.seq,
      reason: 'Overloaded',
      code: '529',
    })
    expect(mark.lastSeq).toBe(question!.seq)
    expect(await store.read('failed-1')).toEqual(logBefore)
    const other = await createMemory({ store }).thread('failed-1')
    expect(await other.failures()).toEqual([mark])
    expect((await other.status()).failures).toEqual([mark])
  })

  it('a later answer clears the mark; marking the same request again keeps one mark, the newest', async () => {
    const thread = await createMemory().thread('failed-2')
    await thread.append({ role: 'user', content: 'Hello' })
    await thread.markFailed({ reason: 'first try' })
    await thread.markFailed({ reason: 'second try' })
    expect((await thread.failures()).map((mark) => mark.reason)).toEqual(['second try'])
    await thread.append({ role: 'assistant', content: 'Hi' })
    expect(await thread.failures()).toEqual([])
    expect((await thread.status()).failures).toEqual([])
  })

  it('a step that failed after a tool call counts: the answer before the mark does not clear it', async () => {
    const thread = await createMemory().thread('failed-3')
    const [question] = await thread.append({ role: 'user', content: 'Look it up' })
    await thread.append([
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: {} }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { ok: true } }],
      },
    ])
    await thread.markFailed({ reason: 'stream dropped' })
    expect((await thread.failures()).map((mark) => mark.itemId)).toEqual([question!.id])
  })

  it('keeps the newest 20 marks', async () => {
    const store = inMemoryStore()
    const thread = await createMemory({ store }).thread('failed-4')
    const ids: string[] = []
    for (let index = 0; index < MAX_REQUEST_FAILURES + 5; index++) {
      const [message] = await thread.append({ role: 'user', content: `request ${index}` })
      ids.push(message!.id)
      await thread.markFailed({ reason: `failure ${index}` })
    }
    const marks = await thread.failures()
    expect(marks.map((mark) => mark.itemId)).toEqual(ids.slice(-MAX_REQUEST_FAILURES))
    expect((await store.getState('failed-4'))?.requestFailures).toHaveLength(MAX_REQUEST_FAILURES)
  })

  it('a rewind that archives the marked message drops its mark', async () => {
    const thread = await createMemory().thread('failed-5')
    await thread.append([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'answer one' },
    ])
    const [second] = await thread.append({ role: 'user', content: 'two' })
    await thread.markFailed({ itemId: second!.id, reason: 'timeout' })
    await thread.rewind({ afterSeq: 2 })
    expect(await thread.failures()).toEqual([])
  })

  it('bad input is STRATA_INVALID_OPTIONS and leaves the stored thread exactly as it was', async () => {
    const store = inMemoryStore()
    const thread = await createMemory({ store }).thread('failed-6')
    expect(
      StrataError.isInstance(
        await failure(() => thread.markFailed({ reason: 'no request yet' })),
        'STRATA_INVALID_OPTIONS',
      ),
    ).toBe(true)
    const [question, answer] = await thread.append([
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi' },
    ])
    const opening = await thread.enter('task', { title: 'Check the ledger' })
    await thread.append({ role: 'user', content: 'Again' })
    await thread.markFailed({ reason: 'kept' })
    const before = await storedThread(store, 'failed-6')
    const bad: unknown[] = [
      { itemId: 'no-such-item', reason: 'x' },
      { itemId: answer!.id, reason: 'x' },
      { itemId: opening.id, reason: 'x' },
      { itemId: question!.id, reason: '' },
      { itemId: '', reason: 'x' },
      { reason: 'x', code: 529 },
      { reason: 42 },
      null,
      'Overloaded',
    ]
    for (const options of bad) {
      const error = await failure(() => thread.markFailed(options as never))
      expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS'), JSON.stringify(options)).toBe(true)
      expect((error as Error).message).toMatch(/markFailed\(\)/)
    }
    expect(await storedThread(store, 'failed-6')).toEqual(before)
  })

  it('under another request hold: STRATA_THREAD_BUSY, state unchanged; the holder marks', async () => {
    const store = inMemoryStore()
    const holder = await createMemory({ store }).thread('failed-7')
    const other = await createMemory({ store }).thread('failed-7')
    const hold = await holder.hold()
    await holder.append({ role: 'user', content: 'Hello' })
    const before = await storedThread(store, 'failed-7')
    const refused = await failure(() => other.markFailed({ reason: 'not mine' }))
    expect(StrataError.isInstance(refused, 'STRATA_THREAD_BUSY')).toBe(true)
    expect(await storedThread(store, 'failed-7')).toEqual(before)
    await holder.markFailed({ reason: 'mine' })
    await hold.release()
    expect((await other.failures()).map((mark) => mark.reason)).toEqual(['mine'])
  })

  it('cuts a long reason to 1,000 characters', async () => {
    const thread = await createMemory().thread('failed-8')
    await thread.append({ role: 'user', content: 'Hello' })
    const mark = await thread.markFailed({ reason: 'x'.repeat(5000) })
    expect(mark.reason).toHaveLength(1000)
  })

  it('property: failures() are the marked requests no answer followed, newest 20', async () => {
    type Step = { kind: 'user' } | { kind: 'answer' } | { kind: 'mark'; back: number }
    const step = fc.oneof(
      fc.constant<Step>({ kind: 'user' }),
      fc.constant<Step>({ kind: 'answer' }),
      fc.nat({ max: 3 }).map((back): Step => ({ kind: 'mark', back })),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const thread = await createMemory().thread('failed-property')
        const users: string[] = []
        // The model: marked item ids in marking order, each with the answer count when it was marked.
        let marks: { itemId: string; answersAt: number }[] = []
        let answers = 0
        for (const [index, current] of steps.entries()) {
          if (current.kind === 'user') {
            const [message] = await thread.append({ role: 'user', content: `u${index}` })
            users.push(message!.id)
          } else if (current.kind === 'answer') {
            await thread.append({ role: 'assistant', content: `a${index}` })
            answers++
          } else {
            const itemId = users.at(-1 - current.back)
            if (itemId === undefined) continue
            await thread.markFailed({ itemId, reason: `r${index}` })
            marks = marks.filter((mark) => mark.answersAt === answers && mark.itemId !== itemId)
            marks.push({ itemId, answersAt: answers })
            marks = marks.slice(-MAX_REQUEST_FAILURES)
          }
        }
        const open = marks.filter((mark) => mark.answersAt === answers).map((mark) => mark.itemId)
        expect((await thread.failures()).map((mark) => mark.itemId)).toEqual(open)
      }),
      { numRuns: 60 },
    )
  })
})
