import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { createMemory } from './create-memory'
import { followHistory, noDivergencePoint } from './follow-history'

describe('noDivergencePoint', () => {
  it("words the thread's not-continuing refusal as the middleware's, and leaves every other error alone", async () => {
    const thread = await createMemory().thread('words')
    await thread.append([
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
    ])
    const refusal = await thread
      .appendUnseen(
        [
          { role: 'user', content: 'other' },
          { role: 'assistant', content: 'a1' },
        ],
        {
          history: 'full',
        },
      )
      .catch((error: unknown) => error)
    const worded = noDivergencePoint(refusal, 'words', 'full')
    expect(StrataError.isInstance(worded, 'STRATA_INVALID_MESSAGE')).toBe(true)
    expect((worded as StrataError).details).toMatchObject({ reason: 'no-divergence-point', history: 'full' })
    expect((worded as StrataError).cause).toBe(refusal)

    // A malformed message is STRATA_INVALID_MESSAGE too, and keeps its own words.
    const malformed = await thread
      .appendUnseen([{ role: 'user', content: [{ type: 'nonsense' }] } as never])
      .catch((error: unknown) => error)
    expect(StrataError.isInstance(malformed, 'STRATA_INVALID_MESSAGE')).toBe(true)
    expect(noDivergencePoint(malformed, 'words', 'auto')).toBe(malformed)
    const conflict = new StrataError({ code: 'STRATA_SEQ_CONFLICT', message: 'x' })
    expect(noDivergencePoint(conflict, 'words', 'auto')).toBe(conflict)
  })
})

describe('followHistory with one new message', () => {
  it("does not ask for a divergence point in 'auto' (there is none), and stores or recognises the message", async () => {
    const thread = await createMemory().thread('lone')
    await thread.append([
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
    ])
    let asked = 0
    const divergence = thread.divergence.bind(thread)
    thread.divergence = ((...args: Parameters<typeof divergence>) => {
      asked++
      return divergence(...args)
    }) as typeof thread.divergence
    const stored = await followHistory(thread, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'q2' },
    ])
    expect(stored.map((item) => item.content)).toEqual([[{ type: 'text', text: 'q2' }]])
    // The same message again is a re-send (a retry): stored once.
    expect(await followHistory(thread, [{ role: 'user', content: 'q2' }])).toEqual([])
    expect(asked).toBe(0)
    // An answer, two messages, or another mode: the thread is asked, as before.
    await followHistory(thread, [{ role: 'assistant', content: 'a2' }])
    await followHistory(thread, [
      { role: 'assistant', content: 'a2' },
      { role: 'user', content: 'q3' },
    ])
    // In 'full', a lone message is refused (it does not hold the stored tail): the thread was asked.
    const refused = await followHistory(thread, [{ role: 'user', content: 'q4' }], { history: 'full' }).catch(
      (caught: unknown) => caught,
    )
    expect(StrataError.isInstance(refused, 'STRATA_INVALID_MESSAGE')).toBe(true)
    expect(asked).toBe(3)
  })

  it("refuses a message that is not one in 'auto' as before, storing nothing", async () => {
    const thread = await createMemory().thread('lone-bad')
    const error = await followHistory(thread, [
      { role: 'user', content: [{ type: 'nonsense' }] } as never,
    ]).catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_INVALID_MESSAGE')).toBe(true)
    expect(await thread.items()).toEqual([])
  })
})
