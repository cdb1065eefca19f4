import type { MastraDBMessage } from '@mastra/core/agent/message-list'
import { InMemoryStore } from '@mastra/core/storage'
import { createMemory, StrataError } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { StrataMemory } from './strata-memory'

/**
 * What an import (or Mastra's server) saves and reads back through Mastra's memory API, answered by
 * Mastra's own storage (`InMemoryStore`, the reference) and by StrataMemory: the same calls give the
 * same threads and messages, Strata's `content.metadata.strata` aside.
 */
async function both() {
  const storage = new InMemoryStore()
  const reference = (await storage.getStore('memory'))!
  const strata = new StrataMemory({ memory: createMemory() })
  return { reference, strata }
}

const day = (date: string) => new Date(`${date}T12:00:00.000Z`)

/** Format-2 messages of an import: their own dates and metadata. */
function imported(threadId: string): MastraDBMessage[] {
  return [1, 2, 3, 4].map((n) => ({
    id: `m${n}`,
    role: n % 2 === 1 ? 'user' : 'assistant',
    createdAt: day(`2024-01-0${n}`),
    threadId,
    resourceId: 'ana',
    content: {
      format: 2,
      parts: [{ type: 'text', text: `message ${n}` }],
      ...(n === 2 ? { metadata: { source: 'import', rank: n } } : {}),
    },
  }))
}

/** What both answer alike: ids, roles, texts, dates and metadata, Strata's own key left out. */
const shown = (messages: MastraDBMessage[]) =>
  messages.map(({ id, role, createdAt, content }) => {
    const { strata: _strata, ...metadata } = (content.metadata ?? {}) as Record<string, unknown>
    return {
      id,
      role,
      createdAt: createdAt.toISOString(),
      text: content.parts.map((part) => (part.type === 'text' ? part.text : '')).join(''),
      metadata,
    }
  })

describe("StrataMemory answers Mastra's memory API as Mastra's own storage does", () => {
  it('keeps saved messages’ createdAt and content.metadata; date and metadata filters find them', async () => {
    const { reference, strata } = await both()
    const thread = {
      id: 'ana/import',
      resourceId: 'ana',
      createdAt: day('2024-01-01'),
      updatedAt: day('2024-01-01'),
    }
    await reference.saveThread({ thread })
    await strata.saveThread({ thread })
    await reference.saveMessages({ messages: imported(thread.id) })
    await strata.saveMessages({ messages: imported(thread.id) })

    const all = await reference.listMessages({ threadId: thread.id, perPage: false })
    const recalled = await strata.recall({ threadId: thread.id, perPage: false })
    expect(shown(recalled.messages)).toEqual(shown(all.messages))
    expect(shown(recalled.messages)[1]).toMatchObject({
      createdAt: '2024-01-02T12:00:00.000Z',
      metadata: { source: 'import', rank: 2 },
    })

    const dateRange = { start: day('2024-01-02'), end: day('2024-01-03') }
    const byDate = await strata.recall({ threadId: thread.id, perPage: false, filter: { dateRange } })
    const referenceByDate = await reference.listMessages({
      threadId: thread.id,
      perPage: false,
      filter: { dateRange },
    })
    expect(shown(byDate.messages).map((message) => message.id)).toEqual(['m2', 'm3'])
    expect(shown(byDate.messages)).toEqual(shown(referenceByDate.messages))

    const byMetadata = await strata.recall({
      threadId: thread.id,
      perPage: false,
      filter: { metadata: { source: 'import' } },
    })
    expect(shown(byMetadata.messages).map((message) => message.id)).toEqual(['m2'])
  })

  it('refuses metadata JSON cannot hold, typed, storing nothing of the thread', async () => {
    const { strata } = await both()
    await strata.saveThread({
      thread: { id: 'ana/bad', resourceId: 'ana', createdAt: new Date(), updatedAt: new Date() },
    })
    const [first, second] = imported('ana/bad')
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    second!.content.metadata = cyclic
    const saving = strata.saveMessages({ messages: [first!, second!] })
    await expect(saving).rejects.toSatisfy((error) =>
      StrataError.isInstance(error, 'STRATA_NOT_SERIALIZABLE'),
    )
    expect((await strata.recall({ threadId: 'ana/bad', perPage: false })).messages).toEqual([])
  })

  it('merges updateThread’s metadata into the stored one and keeps a saved thread’s updatedAt', async () => {
    const { reference, strata } = await both()
    for (const [id, updatedAt] of [
      ['ana/older', day('2024-02-01')],
      ['ana/newer', day('2024-03-01')],
    ] as const) {
      const thread = {
        id,
        resourceId: 'ana',
        title: id,
        metadata: { k: 2, tag: 'x' },
        createdAt: day('2024-01-01'),
        updatedAt,
      }
      await reference.saveThread({ thread })
      await strata.saveThread({ thread })
    }
    const listed = async (memory: typeof reference | StrataMemory) =>
      (
        await memory.listThreads({
          filter: { resourceId: 'ana' },
          orderBy: { field: 'updatedAt', direction: 'ASC' },
          perPage: false,
        })
      ).threads.map((thread) => ({ id: thread.id, updatedAt: thread.updatedAt.toISOString() }))
    expect(await listed(strata)).toEqual(await listed(reference))
    expect((await listed(strata)).map((thread) => thread.id)).toEqual(['ana/older', 'ana/newer'])

    const referenceUpdated = await reference.updateThread({
      id: 'ana/older',
      title: 'Renamed',
      metadata: { k: 22 },
    })
    const updated = await strata.updateThread({ id: 'ana/older', title: 'Renamed', metadata: { k: 22 } })
    expect(updated.metadata).toEqual({ k: 22, tag: 'x' })
    expect(updated.metadata).toEqual(referenceUpdated.metadata)
    expect((await strata.getThreadById({ threadId: 'ana/older' }))?.metadata).toEqual({ k: 22, tag: 'x' })
  })
})
