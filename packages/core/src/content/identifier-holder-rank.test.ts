import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import type { MessageInput } from '../items'
import { createMemory, type Thread } from '../memory'
import { QUERY_INDEX } from './memory-query'
import type { MemoryQueryOutput, MemoryToolError } from './memory-tool-types'
import { memoryTools } from './memory-tools'

/*
 * Found by a fresh-app trial: `memory_query` for an exact, unique identifier ranked its only holder (a
 * long tool result) 17th, below short results that merely held one of its one-character or number
 * parts (`9`, `6`, `77`): BM25's length normalisation and the short results' labels outweighed the one
 * long entry holding the whole identifier. Both rankers are checked: the thread's index (its own
 * content) and the whole search (a sub-agent reading another thread's content).
 */

afterEach(() => {
  QUERY_INDEX.own = true
})

const ok = <T>(result: T | MemoryToolError): T => {
  if (typeof result === 'object' && result !== null && 'error' in result)
    throw new Error(result.error.message)
  return result as T
}

const call = (id: string, output: string): MessageInput[] => [
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'run_job', input: {} }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'run_job', output }] },
]

const FILLER = 'filler line for the offloaded result\n'

/** A thread holding `word` once, in a tool result of `lines` filler lines, then the `short` results. */
async function threadOf(word: string, lines: number, short: readonly string[]): Promise<Thread> {
  const thread = await createMemory().thread('t1')
  await thread.append(call('big', `External report ${word}\n${FILLER.repeat(lines)}`))
  await thread.append(short.flatMap((output, index) => call(`s${index}`, output)))
  return thread
}

/** The place of the entry holding `word` among the hits of a query for it, for each ranker. */
async function ranks(thread: Thread, word: string): Promise<{ index: number; whole: number }> {
  const place = async (own: boolean) => {
    QUERY_INDEX.own = own
    const { results } = ok<MemoryQueryOutput>(
      await memoryTools(thread).memory_query.execute({ text: word, limit: 100 }),
    )
    return results.findIndex((hit) => hit.snippet.includes(word))
  }
  return { index: await place(true), whole: await place(false) }
}

describe("an identifier's only holder ranks first", () => {
  it.each(['RAREBIGMX09N9V6', 'XYLOPHONEQUARTZ-77', 'INV-2024-6', 'ORDER-77-B9'])(
    '%s: above 1,000 short results holding its parts',
    async (word) => {
      const short = Array.from({ length: 1_000 }, (_, index) => `ok batch ${index} step ${index % 10}`)
      const thread = await threadOf(word, 200, short)
      expect(await ranks(thread, word)).toEqual({ index: 0, whole: 0 })
    },
    30_000,
  )

  it('whatever the corpus of short entries and the length of the holder', async () => {
    const letters = fc.stringMatching(/^[A-Za-z]{1,6}$/)
    const digits = fc.stringMatching(/^[0-9]{1,4}$/)
    // Letters and digits, with or without separators: its whole is never a word or number alone.
    const pieces = fc
      .tuple(letters, digits, fc.array(fc.oneof(letters, digits), { maxLength: 3 }), fc.boolean())
      .map(([letter, digit, more, digitFirst]) =>
        digitFirst ? [digit, letter, ...more] : [letter, digit, ...more],
      )
    const corpus = pieces.chain((parts) => {
      // Random words, small numbers, and the identifier's own pieces, alone or several in one entry.
      const word = fc.oneof(
        fc.stringMatching(/^[a-z]{1,6}$/),
        fc.integer({ min: 0, max: 99 }).map(String),
        fc.constantFrom('ok', 'batch', 'step', 'run', 'job', 'result'),
        fc.constantFrom(...parts),
      )
      return fc.record({
        identifier: fc.constantFrom('', '-', '_').map((separator) => parts.join(separator)),
        lines: fc.integer({ min: 0, max: 400 }),
        short: fc.array(
          fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => words.join(' ')),
          { minLength: 1, maxLength: 150 },
        ),
      })
    })
    await fc.assert(
      fc.asyncProperty(corpus, async ({ identifier, lines, short }) => {
        const thread = await threadOf(identifier, lines, short)
        expect(await ranks(thread, identifier)).toEqual({ index: 0, whole: 0 })
      }),
      { numRuns: 100 },
    )
  }, 120_000)
})
