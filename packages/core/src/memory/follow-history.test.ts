import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { createMemory } from './create-memory'
import { noDivergencePoint } from './follow-history'

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
