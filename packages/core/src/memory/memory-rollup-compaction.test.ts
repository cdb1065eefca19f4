import { describe, expect, it } from 'vitest'
import { MAX_MEMORY_ITEMS, MEMORY_LIMITS } from '../compaction/budget/memory-rollup'
import type { Item, SummaryItem } from '../items'
import { inMemoryStore } from '../stores'
import type { TelemetrySpan, TelemetryTracer } from '../telemetry'
import { createMemory } from './create-memory'

const isMemory = (item: Item) => item.type === 'fact' || (item.type === 'summary' && item.tier !== 'scope')

describe('the memory slots stay bounded under budget compaction', () => {
  it(`after 1 000 compactions the active log holds at most ${MAX_MEMORY_ITEMS} memory items; what rolled up is archived`, async () => {
    expect(MAX_MEMORY_ITEMS).toBeLessThanOrEqual(64)
    const store = inMemoryStore()
    const memory = createMemory({
      store,
      compaction: { budget: { inputTokens: 4_000, rawTailTurns: 0 } },
    })
    const thread = await memory.thread('bounded')
    let most = 0
    for (let index = 0; index < 1_000; index++) {
      // A new fact every turn (the default summarizer keeps what the user states), and an answer's value.
      await thread.append([
        { role: 'user', content: `My locker number is L-${index}. I prefer desk ${index % 97} today.` },
        { role: 'assistant', content: `Invoice PO-${7000 + index} totals ${index}.00 EUR.` },
      ])
      await thread.compact({ force: true })
      const memoryItems = (await thread.items()).filter(isMemory)
      most = Math.max(most, memoryItems.length)
      expect(memoryItems.length).toBeLessThanOrEqual(MAX_MEMORY_ITEMS)
    }
    expect(most).toBeGreaterThan(MEMORY_LIMITS.keepFacts)

    const active = await thread.items()
    const archived = await store.readArchive('bounded')
    // Nothing is lost: every item ever written is active or archived, once.
    const seqs = [...archived, ...active].map((item) => item.seq).sort((a, b) => a - b)
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1))
    expect(archived.filter((item) => item.type === 'message')).toHaveLength(2 * 999)
    // The episodic summaries rolled up into long-term ones, and are still in the archive.
    const rolledEpisodic = archived.filter((item) => item.type === 'summary' && item.tier === 'episodic')
    expect(rolledEpisodic.length).toBeGreaterThan(900)
    const rollups = [...archived, ...active].filter(
      (item): item is SummaryItem => item.type === 'summary' && item.tier === 'long-term',
    )
    expect(rollups.length).toBeGreaterThan(100)
    const latest = (active as Item[]).filter(
      (item): item is SummaryItem => item.type === 'summary' && item.tier === 'long-term',
    )
    expect(latest).toHaveLength(1)
    // A roll-up names what it replaced, and all of it is archived.
    const archivedSeqs = new Set(archived.map((item) => item.seq))
    for (const { fromSeq, toSeq } of latest[0]!.covers!)
      for (let seq = fromSeq; seq <= toSeq; seq++) expect(archivedSeqs.has(seq)).toBe(true)
    // The facts merged, the newest kept: the last turn's locker is known, once.
    const facts = active.filter((item) => item.type === 'fact')
    expect(facts.length).toBeLessThanOrEqual(MEMORY_LIMITS.facts)
    const { messages } = await thread.context()
    const text = messages.map((message) => JSON.stringify(message.content)).join('\n')
    expect(text).toContain('[MEMORY:LONG-TERM]')
    expect(text).toContain('L-998')
    await memory.close()
  }, 120_000)
})

describe('a compaction reports its cost in its span', () => {
  it('strata.compaction carries items read, archived, summaries and facts written, memory items left', async () => {
    const spans: { name: string; attributes: Record<string, unknown> }[] = []
    const tracer: TelemetryTracer = {
      startActiveSpan(name, options, fn) {
        const record = { name, attributes: { ...options.attributes } as Record<string, unknown> }
        spans.push(record)
        const span: TelemetrySpan = {
          setAttribute: (key, value) => {
            record.attributes[key] = value
          },
          setAttributes: (attributes) => Object.assign(record.attributes, attributes),
          recordException: () => undefined,
          setStatus: () => undefined,
          end: () => undefined,
        }
        return fn(span) as ReturnType<typeof fn>
      },
    }
    const memory = createMemory({
      store: inMemoryStore(),
      telemetry: { tracer },
      compaction: { budget: { inputTokens: 4_000, rawTailTurns: 0 } },
    })
    const thread = await memory.thread('traced')
    for (let index = 0; index < 3; index++) {
      await thread.append([
        { role: 'user', content: `I prefer desk ${index}. Please book it.` },
        { role: 'assistant', content: `Booked desk ${index}.` },
      ])
    }
    await thread.compact({ force: true })
    const compaction = spans.filter((span) => span.name === 'strata.compaction').at(-1)!
    expect(compaction.attributes).toMatchObject({
      'strata.compaction.items_read': 4,
      'strata.compaction.items_archived': 4,
      'strata.compaction.summaries_written': 1,
      'strata.compaction.facts_written': expect.any(Number),
      'strata.compaction.memory_items': expect.any(Number),
    })
    expect(compaction.attributes['strata.compaction.facts_written']).toBeGreaterThan(0)
    await memory.close()
  })
})

describe('a rolled-up compaction is still where it happened in the transcript', () => {
  it('transcript({ compactions: true }) lists every compaction, those whose summary rolled up included', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store, compaction: { budget: { inputTokens: 4_000, rawTailTurns: 0 } } })
    const thread = await memory.thread('rolled')
    const compactions = 30
    for (let index = 0; index < compactions; index++) {
      await thread.append([
        { role: 'user', content: `Order O-${index} is late.` },
        { role: 'assistant', content: `Order O-${index} ships tomorrow.` },
      ])
      await thread.compact({ force: true })
    }
    const archived = await store.readArchive('rolled')
    // Some of the compactions' summaries rolled up into the archive...
    expect(archived.some((item) => item.type === 'summary' && item.compaction !== undefined)).toBe(true)
    // ...and every compaction is still listed, in seq order, once.
    const written = [...archived, ...(await store.read('rolled'))]
      .filter((item) => item.type === 'summary' && item.compaction !== undefined)
      .map((item) => item.seq)
      .sort((a, b) => a - b)
    expect(written.length).toBeGreaterThanOrEqual(compactions - 1)
    const listed = (await thread.transcript({ compactions: true })).compactions ?? []
    expect(listed.map((item) => item.seq)).toEqual(written)
    // Only the active ones without the archive (a page that asked for the visible turns only).
    const visible = (await thread.transcript({ compactions: true, archived: false })).compactions ?? []
    expect(visible.length).toBeLessThan(written.length)
  })
})
