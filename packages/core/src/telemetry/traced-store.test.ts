import { describe, expect, it } from 'vitest'
import type { UnsequencedItem } from '../items'
import { inMemoryStore } from '../stores'
import type { TelemetryTracer } from '.'
import { recordingTracer } from './testing/recording-tracer'
import { tracedStore } from './traced-store'

const message: UnsequencedItem = {
  id: 'm1',
  ts: 1,
  level: 'task',
  turnId: 'turn_0001',
  type: 'message',
  role: 'user',
  content: [],
}

describe('tracedStore', () => {
  it('spans a call only while the tracer gives one; without, the store is called as it is', async () => {
    const { tracer, spans } = recordingTracer()
    let current: TelemetryTracer | undefined
    const store = tracedStore(inMemoryStore(), () => current)

    const [first] = await store.append('traced', [message], { expectedSeq: 0 })
    expect(first?.seq).toBe(1)
    expect(await store.head('traced')).toEqual({ lastSeq: 1, activeCount: 1, archivedCount: 0 })
    expect(spans).toEqual([])

    current = tracer
    await store.append('traced', [{ ...message, id: 'm2' }], { expectedSeq: 1 })
    await store.listThreads()
    expect(spans).toEqual([
      {
        name: 'strata.store.append',
        attributes: { 'strata.store.name': 'memory', 'strata.thread.id': 'traced', 'strata.store.items': 1 },
      },
      { name: 'strata.store.listThreads', attributes: { 'strata.store.name': 'memory' } },
    ])

    current = undefined
    await store.read('traced')
    expect(spans).toHaveLength(2)
  })

  it('a failed call rejects with the store error, traced or not', async () => {
    const { tracer, spans } = recordingTracer()
    let current: TelemetryTracer | undefined
    const store = tracedStore(inMemoryStore(), () => current)
    await expect(store.append('traced', [message], { expectedSeq: 3 })).rejects.toMatchObject({
      code: 'STRATA_SEQ_CONFLICT',
    })
    current = tracer
    await expect(store.append('traced', [message], { expectedSeq: 3 })).rejects.toMatchObject({
      code: 'STRATA_SEQ_CONFLICT',
    })
    expect(spans.map((span) => span.name)).toEqual(['strata.store.append'])
  })
})
