import { describe, expect, it } from 'vitest'
import { citationPart } from '../content/content-reference'
import type { MessageItem, MessagePart } from '../items'
import { makeMessageItem, withSeqs } from '../testing'
import { withPartTokens } from '../thread-state/thread-log'
import { countMessageTokens, tokenEstimator } from '../tokens'
import { StoredPartCounts } from './stored-part-counts'

const estimator = tokenEstimator()
const count = (message: { content: readonly MessagePart[] }) => countMessageTokens(message, estimator)
const text = (value: string): MessagePart => ({ type: 'text', text: value })

/** A message as core stores it, its parts' counts set to `parts` under `counter`. */
function stored(content: MessagePart[], counter: string, parts: number[]): MessageItem {
  const [item] = withSeqs([makeMessageItem({ content })])
  return { ...(item as MessageItem), tokens: { counter, parts } }
}

describe('StoredPartCounts', () => {
  it('counts the stored parts by their stored counts and the others with the counter', () => {
    const item = stored([text('one'), text('two')], 'estimator@2', [100, 200])
    const counts = new StoredPartCounts('estimator@2')
    counts.take([item])
    expect(counts.count(item, count)).toBe(4 + 100 + 200)
    // A cut is a new part: counted. The stored one beside it keeps its count.
    const cut = text('tw')
    expect(counts.count({ content: [item.content[0]!, cut] }, count)).toBe(4 + 100 + estimator.count('tw'))
  })

  it('leaves out counts of another identity, the un-versioned estimator among them, and counts that do not fit', () => {
    for (const tokens of [
      { counter: 'estimator', parts: [100, 200] },
      { counter: 'estimator@1', parts: [100, 200] },
      { counter: 'estimator@2', parts: [100] },
      { counter: 'estimator@2', parts: [100, -1] },
    ]) {
      const item = stored([text('one'), text('two')], tokens.counter, tokens.parts)
      const counts = new StoredPartCounts('estimator@2')
      counts.take([item])
      expect(counts.count(item, count)).toBe(count(item))
    }
  })

  it('leaves out a cited part: its stored count is of what was appended, not of the citation', () => {
    const original: MessagePart = { type: 'text', text: 'x'.repeat(5_000) }
    const citation = citationPart(original, '[cited]', { id: 'mem_1', kind: 'text', tokens: 999 })
    const item = withPartTokens(
      { ...makeMessageItem({ content: [citation, text('kept')] }) },
      estimator,
    ) as MessageItem
    expect(item.tokens?.parts[0]).toBe(999)
    const counts = new StoredPartCounts('estimator@2')
    counts.take([{ ...item, seq: 1 }])
    expect(counts.count(item, count)).toBe(count(item))
    expect(count(item)).toBeLessThan(999)
  })

  it('counts with the counter alone when nothing was taken in', () => {
    const counts = new StoredPartCounts('estimator@2')
    const message = { content: [text('hello there')] }
    expect(counts.count(message, count)).toBe(count(message))
  })
})
