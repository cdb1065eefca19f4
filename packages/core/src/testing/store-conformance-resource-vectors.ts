import { describe, expect, it } from 'vitest'
import type { VectorRecord } from '../stores'
import { expectStrataError } from './store-conformance-helpers'
import type { ResourceCases } from './store-conformance-resource-cases'

/** Float32 values a text encoding could lose: the smallest subnormal, the largest finite, -0, π. */
const AWKWARD_FLOATS = [1.401298464324817e-45, 3.4028234663852886e38, -0, Math.fround(Math.PI), -1.5, 0.1]

function expectSameVector(actual: Float32Array, expected: Float32Array, label: string): void {
  expect(actual, label).toBeInstanceOf(Float32Array)
  expect(actual.length, label).toBe(expected.length)
  for (let index = 0; index < expected.length; index++) {
    expect(
      Object.is(actual[index], expected[index]),
      `${label}[${index}]: ${actual[index]} vs ${expected[index]}`,
    ).toBe(true)
  }
}

/** The vector cases of the resource capability: exact round trips, replacement, filters, bad input. */
export function describeResourceVectorConformance(cases: ResourceCases): void {
  const { store, newThreadId, requireResources } = cases

  describe('vectors', () => {
    it('round-trips Float32Array vectors exactly, bit for bit', async (context) => {
      requireResources(context)
      const threadId = newThreadId()
      const wide = Float32Array.from(
        { length: 1536 },
        (_, index) => Math.sin(index) * 10 ** ((index % 12) - 6),
      )
      const records: VectorRecord[] = [
        { id: 'item:1', model: 'test-embedder', vector: Float32Array.from(AWKWARD_FLOATS) },
        { id: 'content:mem_1', model: 'test-embedder', vector: wide },
        { id: 'fact:3#0', model: 'model/with:odd chars 🙂', vector: new Float32Array([1]) },
      ]
      await store().putVectors(threadId, records)
      const read = await store().readVectors(threadId)
      expect(read.map((record) => record.id)).toEqual(['content:mem_1', 'fact:3#0', 'item:1'])
      for (const record of records) {
        const found = read.find((candidate) => candidate.id === record.id)!
        expect(found.model).toBe(record.model)
        expectSameVector(found.vector, record.vector, record.id)
      }
    })

    it('replaces a record of the same id and model; filters by model', async (context) => {
      requireResources(context)
      const threadId = newThreadId()
      await store().putVectors(threadId, [
        { id: 'item:1', model: 'a', vector: new Float32Array([1, 1]) },
        { id: 'item:1', model: 'b', vector: new Float32Array([2, 2, 2]) },
        { id: 'item:2', model: 'a', vector: new Float32Array([3, 3]) },
      ])
      await store().putVectors(threadId, [{ id: 'item:1', model: 'a', vector: new Float32Array([4, 4]) }])
      const all = await store().readVectors(threadId)
      expect(all.map((record) => [record.id, record.model, [...record.vector]])).toEqual([
        ['item:1', 'a', [4, 4]],
        ['item:1', 'b', [2, 2, 2]],
        ['item:2', 'a', [3, 3]],
      ])
      const ofA = await store().readVectors(threadId, { model: 'a' })
      expect(ofA.map((record) => [record.id, [...record.vector]])).toEqual([
        ['item:1', [4, 4]],
        ['item:2', [3, 3]],
      ])
      expect(await store().readVectors(threadId, { model: 'none' })).toEqual([])
      expect(await store().readVectors(newThreadId())).toEqual([])
      await store().putVectors(threadId, [])
      expect(await store().readVectors(threadId)).toHaveLength(3)
    })

    it('vectors alone do not make a thread listed', async (context) => {
      requireResources(context)
      const threadId = newThreadId()
      await store().putVectors(threadId, [{ id: 'item:1', model: 'a', vector: new Float32Array([1]) }])
      expect(await store().listThreads()).not.toContain(threadId)
    })

    it('returns fresh copies and keeps its own copy of what it was given', async (context) => {
      requireResources(context)
      const threadId = newThreadId()
      const vector = new Float32Array([1, 2, 3])
      await store().putVectors(threadId, [{ id: 'item:1', model: 'a', vector }])
      vector[0] = 99
      const [read] = await store().readVectors(threadId)
      read!.vector[1] = 99
      expect([...(await store().readVectors(threadId))[0]!.vector]).toEqual([1, 2, 3])
    })

    it('refuses bad records with STRATA_INVALID_OPTIONS, storing none of the batch', async (context) => {
      requireResources(context)
      const threadId = newThreadId()
      const good = { id: 'item:1', model: 'a', vector: new Float32Array([1]) }
      const bad: unknown[] = [
        { id: 'item:2', model: 'a', vector: [1, 2] },
        { id: 'item:2', model: 'a', vector: new Float32Array(0) },
        { id: 'item:2', model: 'a', vector: new Float32Array([Number.NaN]) },
        { id: 'item:2', model: 'a', vector: new Float64Array([1]) },
        { id: '', model: 'a', vector: new Float32Array([1]) },
        { id: 'item:2', model: '', vector: new Float32Array([1]) },
        null,
      ]
      for (const record of bad) {
        await expectStrataError(
          () => store().putVectors(threadId, [good, record as VectorRecord]),
          'STRATA_INVALID_OPTIONS',
          `record ${String(record)}`,
        )
      }
      await expectStrataError(() => store().putVectors(threadId, good as never), 'STRATA_INVALID_OPTIONS')
      await expectStrataError(() => store().readVectors(threadId, { model: '' }), 'STRATA_INVALID_OPTIONS')
      expect(await store().readVectors(threadId)).toEqual([])
    })
  })
}
