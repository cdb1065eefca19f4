import { createMemory, inMemoryStore, type ToolResultPart } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import {
  itemsOf,
  RESULT_MAX_BYTES,
  RESULT_MIN_BYTES,
  type ScaleLevel,
  scaleCycles,
  writeScaleThread,
} from './scale-fixture.ts'

const SIZE = 1_000

describe('the scale fixture', () => {
  it('writes exactly the size asked, with the mix issue 32 measured: 28% tool results of 1–8 KB', () => {
    for (const size of [SIZE, 1_234, 10_001]) {
      const operations = [...scaleCycles(size)].flatMap((cycle) => cycle.operations)
      expect(operations.reduce((sum, operation) => sum + itemsOf(operation), 0)).toBe(size)
    }
    const messages = [...scaleCycles(SIZE)]
      .flatMap((cycle) => cycle.operations)
      .flatMap((operation) => (operation.kind === 'append' ? operation.messages : []))
    const outputs = messages
      .filter((message) => message.role === 'tool')
      .flatMap((message) => message.content as ToolResultPart[])
      .map((part) => Buffer.byteLength(part.output as string))
    expect(outputs.length / SIZE).toBeGreaterThan(0.26)
    expect(outputs.length / SIZE).toBeLessThan(0.3)
    expect(Math.min(...outputs)).toBeGreaterThanOrEqual(RESULT_MIN_BYTES)
    expect(Math.max(...outputs)).toBeLessThanOrEqual(RESULT_MAX_BYTES)
    // Spread over the range, not bunched at one size.
    expect(outputs.filter((bytes) => bytes < 3_000).length).toBeGreaterThan(outputs.length / 5)
    expect(outputs.filter((bytes) => bytes > 6_000).length).toBeGreaterThan(outputs.length / 5)
    expect(new Set(outputs).size).toBeGreaterThan(outputs.length / 2)
  })

  it('is the same thread on every run for a size', () => {
    expect(JSON.stringify([...scaleCycles(SIZE)])).toBe(JSON.stringify([...scaleCycles(SIZE)]))
  })

  it('opens and closes its scopes in balance; every cycle starts at the top level', async () => {
    for (const cycle of scaleCycles(SIZE)) {
      let depth = 0
      for (const operation of cycle.operations) {
        if (operation.kind === 'enter') depth++
        if (operation.kind === 'exit') depth--
        expect(depth).toBeGreaterThanOrEqual(0)
      }
      expect(depth).toBe(0)
    }
    const store = inMemoryStore()
    const thread = await createMemory<ScaleLevel>({ store }).thread('scale-fixture')
    const layout = await writeScaleThread(thread, SIZE)
    const items = await store.read('scale-fixture')
    expect(items).toHaveLength(SIZE)
    expect(thread.scopes.length).toBe(0)
    const transitions = items.filter((item) => item.type === 'transition')
    const levels = new Set(items.map((item) => item.level))
    expect(levels).toEqual(new Set(['global', 'project', 'task']))
    // A transition (with its scope summary) for each task and project closed.
    expect(transitions.length).toBeGreaterThan(SIZE / 50)
    expect(items.filter((item) => item.type === 'summary')).toHaveLength(transitions.length)
    // Where the bench cuts the history: a user message at the top level.
    for (const seq of layout.cycleStarts) {
      const item = items[seq - 1]!
      expect(item.level).toBe('global')
      expect(item.type === 'message' && item.role).toBe('user')
    }
    // The tool results the store holds are the generator's, each next to its call.
    const results = items.filter((item) => item.type === 'message' && item.role === 'tool')
    expect(results.length / SIZE).toBeGreaterThan(0.26)
    for (const result of results) {
      const before = items[result.seq - 2]!
      expect(before.type === 'message' && before.role).toBe('assistant')
    }
  })
})
