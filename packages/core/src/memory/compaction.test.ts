import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CompactionEndEvent } from '../events'
import type { Item } from '../items'
import { inMemoryStore } from '../stores'
import type { SummarizeOptions, Summarizer } from '../summarizers'
import { createMemory } from './create-memory'

/** A summarizer that records each call and answers with the seqs it was given. */
function scripted({ delay = 0, fail = false }: { delay?: number; fail?: boolean } = {}) {
  const calls: { tier: string; seqs: number[]; previous?: string; known?: readonly string[] }[] = []
  const summarizer: Summarizer & { calls: typeof calls; fail: boolean } = {
    name: 'scripted',
    calls,
    fail,
    async summarize(items: readonly Item[], options: SummarizeOptions) {
      calls.push({
        tier: options.tier,
        seqs: items.map((item) => item.seq),
        ...(options.previousSummary ? { previous: options.previousSummary } : {}),
        ...(options.knownFacts ? { known: options.knownFacts } : {}),
      })
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
      if (summarizer.fail) throw new Error('model down')
      const first = items[0]?.seq
      const last = items.at(-1)?.seq
      return {
        summary: `${options.tier} of ${first}-${last}`,
        facts: options.tier === 'episodic' ? [{ text: 'The user likes blue.', confidence: 0.9 }] : [],
      }
    },
  }
  return summarizer
}

const chat = (index: number) =>
  index % 2 === 0
    ? { role: 'user' as const, content: `question ${index}` }
    : { role: 'assistant' as const, content: `answer ${index}` }

describe('waterfall', () => {
  it('triggers at exactly 129, 193 and 257 items with the right ranges, in the background', async () => {
    const summarizer = scripted()
    const memory = createMemory({ summarizer, compaction: { waterfall: {} } })
    const ends: CompactionEndEvent[] = []
    memory.on('compaction-end', (event) => ends.push(event))
    const thread = await memory.thread('waterfall')
    const triggeredAt: number[] = []
    for (let index = 0; index < 260; index++) {
      await thread.append(chat(index))
      if (summarizer.calls.filter((call) => call.tier === 'short-term').length > triggeredAt.length) {
        triggeredAt.push(index + 1)
      }
      await thread.compact()
    }
    expect(triggeredAt).toEqual([129, 193, 257])
    const shortTerm = summarizer.calls.filter((call) => call.tier === 'short-term')
    expect(shortTerm.map((call) => [call.seqs[0], call.seqs.at(-1), call.seqs.length])).toEqual([
      [1, 64, 64],
      [65, 128, 64],
      // Summary items take seqs too: the third range holds history items 129-192, at seqs 129-193.
      [129, 193, 64],
    ])
    const longTerm = summarizer.calls.filter((call) => call.tier === 'long-term')
    expect(longTerm).toHaveLength(2)
    expect(ends.every((event) => event.error === undefined && event.trigger === 'waterfall')).toBe(true)

    const { messages, stats } = await thread.context()
    expect(messages[0]!.content[0]).toMatchObject({
      text: expect.stringMatching(/^\[MEMORY:LONG-TERM\]\nlong-term of/),
    })
    expect(messages[1]!.content[0]).toMatchObject({ text: '[MEMORY:SHORT-TERM]\nshort-term of 129-193' })
    // The view is cut to what the summaries do not cover: items 193..260.
    expect(stats.itemsVisible).toBe(68)
    expect(messages[2]!.content[0]).toMatchObject({ text: 'question 192' })
  })

  it('never delays a context: a slow summarizer runs while contexts are built from the old state', async () => {
    const summarizer = scripted({ delay: 200 })
    const memory = createMemory({ summarizer, compaction: { waterfall: { window: 4, every: 4 } } })
    const thread = await memory.thread('slow')
    for (let index = 0; index < 9; index++) await thread.append(chat(index))
    expect(summarizer.calls).toHaveLength(1)
    const during = await thread.context()
    expect(during.stats.itemsVisible).toBe(9)
    // Appends during the compaction are kept.
    await thread.append(chat(9))
    await thread.compact()
    const after = await thread.context()
    expect(after.messages[0]!.content[0]).toMatchObject({ text: '[MEMORY:SHORT-TERM]\nshort-term of 1-4' })
    expect((await thread.items()).filter((item) => item.type === 'message')).toHaveLength(10)
  })

  it('a failing summarizer leaves the log untouched, reports it, and is tried again', async () => {
    const summarizer = scripted({ fail: true })
    const memory = createMemory({ summarizer, compaction: { waterfall: { window: 4, every: 4 } } })
    const ends: CompactionEndEvent[] = []
    memory.on('compaction-end', (event) => ends.push(event))
    const thread = await memory.thread('failing')
    for (let index = 0; index < 9; index++) await thread.append(chat(index))
    await thread.compact()
    expect(ends.at(-1)!.error).toBeDefined()
    expect((await thread.items()).every((item) => item.type === 'message')).toBe(true)
    summarizer.fail = false
    await thread.append(chat(9))
    await thread.compact()
    expect((await thread.items()).some((item) => item.type === 'summary' && item.tier === 'short-term')).toBe(
      true,
    )
  })
})

describe('token budget', () => {
  const budget = { maxContextTokens: 10_000, maxOutputTokens: 1_000, safetyMargin: 1_000 } // input budget 8 000

  async function tenTurns() {
    const summarizer = scripted()
    const store = inMemoryStore()
    const clock = { now: 1_000_000 }
    const memory = createMemory({ store, summarizer, clock: () => clock.now, compaction: { budget } })
    const ends: CompactionEndEvent[] = []
    memory.on('compaction-end', (event) => ends.push(event))
    const thread = await memory.thread('budget')
    for (let index = 0; index < 20; index++) await thread.append(chat(index))
    return { summarizer, store, memory, thread, ends, clock }
  }

  it('does nothing under the ratio; over it, the next context archives whole turns older than the raw tail', async () => {
    const { summarizer, store, thread, ends } = await tenTurns()
    const before = await thread.items()
    await thread.reportUsage({ inputTokens: 6_400 }) // exactly 0.8 × 8 000: not over
    await thread.context()
    expect(summarizer.calls).toHaveLength(0)

    await thread.reportUsage({ inputTokens: 6_401 })
    const { messages } = await thread.context()
    expect(summarizer.calls.map((call) => [call.tier, call.seqs])).toEqual([
      ['episodic', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]],
    ])
    // Turns 1-5 are archived, item for item; turns 6-10 (raw tail of 4 + the current turn) stay.
    expect(await store.readArchive('budget')).toEqual(before.slice(0, 10))
    const active = (await thread.items()).filter((item) => item.type === 'message')
    expect(active.map((item) => item.turnId)).toEqual(before.slice(10).map((item) => item.turnId))
    expect(messages.map((message) => (message.content[0] as { text: string }).text).slice(0, 2)).toEqual([
      '[MEMORY:SEMANTIC]\n- The user likes blue.',
      '[MEMORY:EPISODIC]\n1) episodic of 1-10',
    ])
    expect(ends.at(-1)).toMatchObject({ trigger: 'budget', itemsArchived: 10, itemsWritten: 2 })
    expect(ends.at(-1)!.tokensAfter).toBeLessThan(ends.at(-1)!.tokensBefore)
  })

  it('the hard limit compacts too; the same fact twice is one fact, and a failure changes nothing', async () => {
    const { summarizer, thread, store, clock, ends } = await tenTurns()
    const system = 'lorem '.repeat(250) // ~350 tokens
    // The provider counts far more than the memory did (tool definitions, say): over the whole budget.
    // It compacts, and later contexts keep room for what the provider adds.
    const first = await thread.context({ system })
    await thread.reportUsage({ inputTokens: first.stats.contextTokens + 7_500 })
    const after = await thread.context({ system })
    expect(summarizer.calls).toHaveLength(1)
    expect(after.stats.inputBudget).toBe(500)
    expect(after.stats.contextTokens).toBeLessThanOrEqual(500)
    // The next call's prompt was under the threshold: another over it compacts again at once.
    await thread.reportUsage({ inputTokens: after.stats.contextTokens + 100 })
    for (let index = 20; index < 30; index++) await thread.append(chat(index))
    summarizer.fail = true
    const before = await thread.context({ system })
    await thread.reportUsage({ inputTokens: before.stats.contextTokens + 7_500 })
    const archivedBefore = await store.readArchive('budget')
    const itemsBefore = await thread.items()
    await thread.context({ system })
    expect(await store.readArchive('budget')).toEqual(archivedBefore)
    expect(await thread.items()).toEqual(itemsBefore)
    expect(ends.at(-1)).toMatchObject({ trigger: 'budget', retryAt: clock.now + 30_000 })
    summarizer.fail = false
    // The re-trigger guard: the next writes do not wait on a failing summarizer again until retryAt.
    const attempts = summarizer.calls.length
    clock.now += 29_999
    await thread.append(chat(30))
    await thread.context({ system })
    expect(summarizer.calls).toHaveLength(attempts)
    expect((await thread.status()).compaction).toMatchObject({
      budgetRequested: expect.any(String),
      retryAt: clock.now + 1,
    })
    clock.now += 1
    await thread.append(chat(31)) // retried: the request is still pending
    // The provider's count is close to the memory's again: the whole budget is back.
    await thread.reportUsage({ inputTokens: (await thread.context({ system })).stats.contextTokens + 100 })
    const { messages, stats } = await thread.context({ system })
    expect(stats.inputBudget).toBe(7_900)
    const semantic = messages.find((message) =>
      (message.content[0] as { text: string }).text.startsWith('[MEMORY:SEMANTIC]'),
    )
    expect((semantic!.content[0] as { text: string }).text).toBe('[MEMORY:SEMANTIC]\n- The user likes blue.')
    const episodic = (await thread.items()).filter(
      (item) => item.type === 'summary' && item.tier === 'episodic',
    )
    expect(episodic).toHaveLength(2)
    // The fact recalled into the context was handed to the summarizer as known, and not stored twice.
    expect(summarizer.calls[0]!.known).toBeUndefined()
    expect(summarizer.calls.at(-1)!.known).toEqual(['The user likes blue.'])
    expect((await thread.items()).filter((item) => item.type === 'fact')).toHaveLength(1)
  })

  it('a prompt too large without old turns is reported once, not compacted every turn', async () => {
    const summarizer = scripted()
    const memory = createMemory({ summarizer, compaction: { budget } })
    const ends: CompactionEndEvent[] = []
    memory.on('compaction-end', (event) => ends.push(event))
    const thread = await memory.thread('huge-system')
    await thread.append(chat(0))
    // About 6 900 tokens: over the threshold (6 400) alone, under the budget.
    const system = 'lorem '.repeat(6_300)
    for (let turn = 0; turn < 3; turn++) {
      const { stats } = await thread.context({ system })
      expect(stats.contextTokens).toBeGreaterThan(6_400)
      expect(stats.contextTokens).toBeLessThanOrEqual(8_000)
      await thread.reportUsage({ inputTokens: stats.contextTokens })
    }
    expect(ends).toEqual([
      expect.objectContaining({
        skipped: 'nothing-to-compact',
        warning: expect.stringContaining('Shorten the system prompt'),
      }),
    ])
    expect(summarizer.calls).toHaveLength(0)
    // The warning stays visible in status, also to a process that opens the thread later.
    expect((await thread.status()).compaction.last).toMatchObject({ skipped: 'nothing-to-compact' })
    const reopened = await createMemory({ store: memory.store, compaction: { budget } }).thread('huge-system')
    expect((await reopened.status()).compaction.last?.warning).toContain('raw tail')
  })

  it('status reports summaries by tier with their sizes, facts and the last compaction', async () => {
    const { thread } = await tenTurns()
    expect((await thread.status()).compaction).toMatchObject({
      facts: 0,
      summaries: { episodic: { count: 0 } },
    })
    await thread.reportUsage({ inputTokens: 7_000 })
    await thread.context()
    const { compaction } = await thread.status()
    expect(compaction.budgetRequested).toBeUndefined()
    expect(compaction.summaries.episodic.count).toBe(1)
    expect(compaction.summaries.episodic.tokens).toBeGreaterThan(0)
    expect(compaction.facts).toBe(1)
    expect(compaction.last).toMatchObject({ trigger: 'budget', itemsArchived: 10, itemsWritten: 2 })
    expect(compaction.last!.tokensAfter).toBeLessThan(compaction.last!.tokensBefore)
  })

  it("with no usage reported, the thread's own count keeps the context under the budget from the first call", async () => {
    const { summarizer, thread, store } = await tenTurns()
    const page = 'lorem ipsum dolor sit amet '.repeat(300)
    for (let index = 20; index < 40; index++) {
      await thread.append(index % 2 === 0 ? chat(index) : { role: 'assistant', content: `${page} ${index}` })
      const { stats } = await thread.context()
      expect(stats.contextTokens).toBeLessThanOrEqual(8_000)
    }
    expect(summarizer.calls.length).toBeGreaterThan(0)
    expect((await store.readArchive('budget')).length).toBeGreaterThan(0)
    // compact() by hand runs when the estimate is over the threshold, with no usage reported.
    const { stats } = await thread.context()
    expect(stats.inputBudget).toBe(8_000)
  })

  it('snapshot() renders the memory in the DESIGN format: episodic, semantic, recent turns', async () => {
    const { thread } = await tenTurns()
    expect(await thread.snapshot()).toBe(
      [
        '[RECENT TURNS]',
        ...[6, 7, 8, 9, 10].flatMap((turn) => [
          `Turn ${turn}:`,
          `  User: question ${2 * turn - 2}`,
          `  Assistant: answer ${2 * turn - 1}`,
        ]),
      ].join('\n'),
    )
    await thread.compact({ force: true })
    await thread.append({ role: 'user', content: 'Paint it\nblue' })
    expect(await thread.snapshot()).toBe(
      [
        '[MEMORY:EPISODIC]',
        '1) episodic of 1-10',
        '[MEMORY:SEMANTIC]',
        '- The user likes blue.',
        '[RECENT TURNS]',
        ...[7, 8, 9, 10].flatMap((turn) => [
          `Turn ${turn}:`,
          `  User: question ${2 * turn - 2}`,
          `  Assistant: answer ${2 * turn - 1}`,
        ]),
        'Turn 11:',
        '  User: Paint it',
        '    blue',
      ].join('\n'),
    )
  })

  it('compact({ force: true }) compacts by hand', async () => {
    const { summarizer, thread } = await tenTurns()
    await thread.compact({ force: true })
    expect(summarizer.calls).toHaveLength(1)
  })

  it('bad compaction options are typed errors', () => {
    const code = expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' })
    expect(() => createMemory({ compaction: { budget: { maxOutputTokens: -1 } } })).toThrow(code)
    expect(() =>
      createMemory({ compaction: { budget: { maxOutputTokens: 1, compactionRatio: 2 } } }),
    ).toThrow(code)
    expect(() => createMemory({ compaction: { waterfall: { window: 0 } } })).toThrow(code)
    expect(() => createMemory({ compaction: { retry: { initialMs: -1 } } })).toThrow(code)
    expect(() => createMemory({ compaction: { retry: { initialMs: 100, maxMs: 10 } } })).toThrow(code)
    expect(() => createMemory({ compaction: { retry: { wait: 5 } as never } })).toThrow(
      expect.objectContaining({ message: expect.stringContaining('retry.wait is not an option') }),
    )
  })
})

describe('compaction keeps every context whole (property)', () => {
  it('no tool result without its call after waterfall and budget compactions on random histories', async () => {
    let archivedInAll = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(fc.constant('user'), fc.constant('assistant'), fc.constant('call'), fc.constant('late')),
          { maxLength: 80, size: 'medium' },
        ),
        // Tiny chunks make every longer budget compaction a series of committed steps.
        fc.constantFrom(4_096, 3),
        async (steps, chunkItems) => {
          const memory = createMemory({
            compaction: {
              waterfall: { window: 6, every: 4 },
              // Small enough that the thread's own estimate asks for compaction, with no usage reported.
              budget: { inputTokens: 150, rawTailTurns: 1, chunkItems },
            },
          })
          const thread = await memory.thread('random')
          const pending: string[] = []
          let calls = 0
          let appended = 0
          for (const step of steps) {
            if (step !== 'late' || pending.length > 0) appended++
            if (step === 'user' || step === 'assistant') await thread.append({ role: step, content: step })
            else if (step === 'call') {
              const toolCallId = `c${calls++}`
              pending.push(toolCallId)
              await thread.append({
                role: 'assistant',
                content: [{ type: 'tool-call', toolCallId, toolName: 't', input: {} }],
              })
            } else if (pending.length > 0) {
              const toolCallId = pending.shift()!
              await thread.append({
                role: 'tool',
                content: [{ type: 'tool-result', toolCallId, toolName: 't', output: 'ok' }],
              })
            }
            await thread.compact()
            const { messages, stats } = await thread.context()
            expect(stats.contextTokens).toBeLessThanOrEqual(150)
            messages.forEach((message, index) => {
              if (message.role !== 'tool') return
              const previous = messages[index - 1]!
              const answered = previous.content.flatMap((part) =>
                part.type === 'tool-call' ? [part.toolCallId] : [],
              )
              expect(message.content.map((part) => (part as { toolCallId: string }).toolCallId)).toEqual(
                answered,
              )
            })
          }
          const archived = await memory.store.readArchive('random')
          const active = await memory.store.read('random')
          // Nothing is lost: every message is either active or archived, exactly once.
          const seqs = [...archived, ...active]
            .filter((item) => item.type === 'message')
            .map((item) => item.seq)
          expect(new Set(seqs).size).toBe(seqs.length)
          expect(seqs).toHaveLength(appended)
          archivedInAll += archived.length
        },
      ),
      { numRuns: 60 },
    )
    // The histories are long enough that the budget does archive turns.
    expect(archivedInAll).toBeGreaterThan(100)
  })
})

describe('another process compacts', () => {
  it('a second memory on the same store sees the archive and keeps appending', async () => {
    const store = inMemoryStore()
    const compacting = createMemory({
      store,
      summarizer: scripted(),
      compaction: { budget: { maxContextTokens: 10_000, maxOutputTokens: 1_000 } },
    })
    const plain = createMemory({ store })
    const one = await compacting.thread('shared')
    const two = await plain.thread('shared')
    for (let index = 0; index < 20; index++) await two.append(chat(index))
    expect(await two.view()).toHaveLength(20)
    await one.compact({ force: true })
    const view = await two.view()
    expect(view.map((item) => item.seq)).toEqual(
      (await store.read('shared')).filter((item) => item.type === 'message').map((item) => item.seq),
    )
    expect((await two.status()).items).toMatchObject({ archived: 10 })
    const [next] = await two.append(chat(20))
    expect(next!.seq).toBe((await store.head('shared')).lastSeq)
  })
})

describe('two writers compact one thread', () => {
  const budget = { maxContextTokens: 10_000, maxOutputTokens: 1_000 }

  it('the slower compaction re-plans instead of summarizing turns already compacted, and keeps appends', async () => {
    const store = inMemoryStore()
    const slowSummarizer = scripted({ delay: 150 })
    const slow = await createMemory({ store, summarizer: slowSummarizer, compaction: { budget } }).thread(
      'two',
    )
    const fast = await createMemory({ store, summarizer: scripted(), compaction: { budget } }).thread('two')
    const writer = await createMemory({ store }).thread('two')
    for (let index = 0; index < 20; index++) await writer.append(chat(index))

    const slowRun = slow.compact({ force: true })
    await new Promise((resolve) => setTimeout(resolve, 20))
    // While the slow one waits on its summarizer, another writer compacts the same turns and appends.
    await fast.compact({ force: true })
    await writer.append(chat(20))
    await writer.append(chat(21))
    await slowRun

    const [active, archived] = [await store.read('two'), await store.readArchive('two')]
    const episodic = active.filter((item) => item.type === 'summary' && item.tier === 'episodic')
    const ranges = episodic.map((item) => item.type === 'summary' && item.range)
    // No two episodic summaries cover the same items.
    for (let a = 0; a < ranges.length; a++) {
      for (let b = a + 1; b < ranges.length; b++) {
        const [x, y] = [
          ranges[a] as { fromSeq: number; toSeq: number },
          ranges[b] as { fromSeq: number; toSeq: number },
        ]
        expect(x.toSeq < y.fromSeq || y.toSeq < x.fromSeq).toBe(true)
      }
    }
    // Every message is stored once, active or archived, including the two appended meanwhile.
    const messages = [...archived, ...active].filter((item) => item.type === 'message')
    expect(messages).toHaveLength(22)
    expect(new Set(messages.map((item) => item.id)).size).toBe(22)
    expect(slowSummarizer.calls.length).toBeGreaterThanOrEqual(1)
  })
})

describe('an item larger than the budget', () => {
  it('is shown cut with a reference to the full item, which stays stored whole', async () => {
    // The content channel is off: this is about an item kept whole in the log (content-channel.test.ts covers it on).
    const memory = createMemory({
      content: false,
      compaction: { budget: { maxContextTokens: 4_000, maxOutputTokens: 500, safetyMargin: 0 } },
    })
    const thread = await memory.thread('huge-item')
    const page = 'The quick brown fox jumps over the lazy dog. '.repeat(2_000)
    await thread.append({ role: 'user', content: 'Fetch the page' })
    await thread.append({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'f', toolName: 'fetch', input: {} }],
    })
    const [result] = await thread.append({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'f', toolName: 'fetch', output: page }],
    })
    const { messages, stats } = await thread.context()
    const shown = messages.at(-1)!.content[0] as { output: string }
    // The newest result takes what the budget leaves free, not the whole page.
    expect(shown.output.length).toBeLessThan(page.length / 5)
    expect(shown.output.length).toBeGreaterThan(page.length / 20)
    expect(shown.output).toContain(`memory_retrieve {"id":"${result!.id}"} returns the whole content`)
    expect(stats.contextTokens).toBeLessThan(3_500)
    const stored = (await thread.items()).at(-1)!
    expect((stored as { content: { output: string }[] }).content[0]!.output).toBe(page)
  })
})

describe('a summarizer that does not answer', () => {
  /** Never answers by itself; records whether its signal was aborted. */
  function hanging() {
    const aborted: boolean[] = []
    const summarizer: Summarizer & { calls: number } = {
      name: 'hanging',
      calls: 0,
      summarize(_items, { signal }) {
        summarizer.calls++
        return new Promise((_, reject) => {
          signal?.addEventListener('abort', () => {
            aborted.push(true)
            reject(signal.reason)
          })
        })
      },
    }
    return { summarizer, aborted }
  }

  it('times out a budget compaction: the log is untouched, the call aborted, and turns do not wait on it again', async () => {
    const { summarizer, aborted } = hanging()
    const clock = { now: 5_000_000 }
    const store = inMemoryStore()
    const memory = createMemory({
      store,
      summarizer,
      clock: () => clock.now,
      compaction: {
        budget: { maxContextTokens: 10_000, maxOutputTokens: 1_000 },
        summarizerTimeoutMs: 50,
        retry: { initialMs: 10_000 },
      },
    })
    const ends: CompactionEndEvent[] = []
    memory.on('compaction-end', (event) => ends.push(event))
    const thread = await memory.thread('timeout')
    for (let index = 0; index < 20; index++) await thread.append(chat(index))
    const before = await thread.items()
    await thread.reportUsage({ inputTokens: 9_999 })
    const { stats } = await thread.context()
    expect(stats.itemsVisible).toBe(20)
    expect(await thread.items()).toEqual(before)
    expect(await store.readArchive('timeout')).toEqual([])
    expect(aborted).toEqual([true])
    expect(ends).toHaveLength(1)
    expect(ends[0]!.error).toMatchObject({
      code: 'STRATA_SUMMARIZER_FAILED',
      details: { reason: 'timeout', summarizer: 'hanging' },
    })
    expect(ends[0]!.retryAt).toBe(clock.now + 10_000)
    expect((await thread.status()).compaction.last?.error).toMatch(/did not answer within 50 ms/)
    // Until retryAt, writes do not start it again and contexts are built at once from the uncompacted log.
    await thread.append(chat(20))
    await thread.context()
    expect(summarizer.calls).toBe(1)
    clock.now += 10_000
    // The request still stands: the next write starts it again.
    await thread.append(chat(21))
    await thread.context()
    expect(summarizer.calls).toBe(2)
    // The second failure waits twice as long.
    expect(ends.at(-1)!.retryAt).toBe(clock.now + 20_000)
    expect((await thread.items()).slice(0, before.length)).toEqual(before)
    expect(await store.readArchive('timeout')).toEqual([])
  })

  it('times out a waterfall compaction in the background; appends go on and retries wait for retryAt', async () => {
    const { summarizer } = hanging()
    const clock = { now: 0 }
    const memory = createMemory({
      summarizer,
      clock: () => clock.now,
      compaction: {
        waterfall: { window: 4, every: 4 },
        summarizerTimeoutMs: 30,
        retry: { initialMs: 1_000 },
      },
    })
    const ends: CompactionEndEvent[] = []
    memory.on('compaction-end', (event) => ends.push(event))
    const thread = await memory.thread('timeout-waterfall')
    for (let index = 0; index < 9; index++) await thread.append(chat(index))
    expect(summarizer.calls).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(ends).toEqual([expect.objectContaining({ trigger: 'waterfall', itemsWritten: 0, retryAt: 1_000 })])
    // More appends while the backoff lasts: no new summarizer call, nothing lost.
    for (let index = 9; index < 14; index++) await thread.append(chat(index))
    expect(summarizer.calls).toBe(1)
    clock.now = 1_000
    await thread.append(chat(14))
    expect(summarizer.calls).toBe(2)
    expect((await thread.items()).filter((item) => item.type === 'message')).toHaveLength(15)
  })
})

describe('determinism', () => {
  /** Replays one scripted conversation with waterfall and budget compaction; returns every context. */
  async function replay() {
    let tick = 0
    let ids = 0
    const memory = createMemory({
      summarizer: scripted(),
      clock: () => 1_700_000_000_000 + tick++,
      generateId: () => `id-${ids++}`,
      compaction: {
        waterfall: { window: 8, every: 8 },
        budget: { maxContextTokens: 500, maxOutputTokens: 100, safetyMargin: 0, rawTailTurns: 2 },
      },
    })
    const thread = await memory.thread('replay')
    const contexts: string[] = []
    for (let index = 0; index < 90; index++) {
      await thread.append(chat(index))
      if (index % 7 === 3) {
        await thread.append({
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: `call-${index}`, toolName: 'lookup', input: { index } }],
        })
        await thread.append({
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: `call-${index}`, toolName: 'lookup', output: `row ${index}` },
          ],
        })
      }
      await thread.compact()
      const { messages, stats } = await thread.context({ system: 'You are terse.' })
      contexts.push(JSON.stringify(messages))
      await thread.reportUsage({ inputTokens: stats.contextTokens })
    }
    return { contexts, archived: await memory.store.readArchive('replay'), active: await thread.items() }
  }

  it('the same conversation and scripted summarizer give byte-identical contexts, logs and archives', async () => {
    const [first, second] = [await replay(), await replay()]
    expect(second.contexts).toEqual(first.contexts)
    expect(second.active).toEqual(first.active)
    expect(second.archived).toEqual(first.archived)
    // Both policies did run, so the comparison covers compacted contexts.
    expect(first.archived.length).toBeGreaterThan(0)
    expect(first.active.some((item) => item.type === 'summary' && item.tier === 'short-term')).toBe(true)
    expect(first.active.some((item) => item.type === 'summary' && item.tier === 'episodic')).toBe(true)
  })
})
