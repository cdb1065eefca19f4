import { describe, expect, it } from 'vitest'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'
import { agentTurn, storeWithoutDigest } from '../testing/thread-open-suite'
import { recordingTracer } from './testing/recording-tracer'

describe('a cold open reports what it read (strata.thread.open)', () => {
  it('counts the items read: the active log only with a digest, the archive too without one', async () => {
    const store = inMemoryStore()
    const options = { store, compaction: { budget: { inputTokens: 2_000 } } } as const
    const writer = createMemory(options)
    const thread = await writer.thread('traced')
    for (let turn = 1; turn <= 30; turn++) await thread.append(agentTurn(turn))
    await thread.compact({ force: true })
    await writer.close()
    const head = await store.head('traced')
    expect(head.archivedCount).toBeGreaterThan(0)

    const withDigest = recordingTracer()
    await createMemory({ ...options, telemetry: { tracer: withDigest.tracer } }).thread('traced')
    const open = withDigest.spans.find((span) => span.name === 'strata.thread.open')
    expect(open?.attributes).toMatchObject({
      'strata.thread.id': 'traced',
      'strata.open.path': 'digest',
      'strata.open.items_read': head.activeCount,
      'strata.open.archive_items_read': 0,
      'strata.open.archived_items': head.archivedCount,
    })

    const replayed = recordingTracer()
    await createMemory({
      ...options,
      store: storeWithoutDigest(store),
      telemetry: { tracer: replayed.tracer },
    }).thread('traced')
    expect(replayed.spans.find((span) => span.name === 'strata.thread.open')?.attributes).toMatchObject({
      'strata.open.path': 'replay',
      'strata.open.items_read': head.activeCount + head.archivedCount,
      'strata.open.archive_items_read': head.archivedCount,
    })
  })
})
