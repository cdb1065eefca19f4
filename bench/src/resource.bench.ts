import { createMemory, inMemoryStore, type StrataStore } from '@strata-memory/core'
import { testEmbedder } from '@strata-memory/core/testing'
import { type Benchmark, type BenchRow, measure, median, rowOf, significant } from './harness.ts'
import {
  type ConversationMessage,
  type ResourceConversations,
  resourceConversations,
  THREAD_COUNT,
} from './resource-conversations.ts'
import { type RankedHit, recallAtK, wordOverlapRanking } from './resource-recall.ts'

const RESOURCE = 'user-1'
const K = 5
const SIZES = [1_000, 10_000, 100_000]
const CONTEXT_SIZE = 10_000
const QUERY_TARGET_MS = 50
const CONTEXT_TARGET_MS = 5
/** Words of the questions and their answers that mean the same, for the test embedder. */
const CONCEPTS = [
  ['budget', 'money', 'spend'],
  ['meeting', 'call'],
  ['digits', 'number'],
  ['menu', 'dinner'],
  ['ingredient', 'eat'],
  ['fly', 'flights'],
  ['move', 'moved'],
]

/** A memory holding the conversations as threads of one resource (with the test embedder when asked). */
async function recallMemory(conversations: ResourceConversations, hybrid: boolean) {
  const memory = createMemory({
    store: inMemoryStore(),
    ...(hybrid ? { embedder: testEmbedder({ concepts: CONCEPTS }) } : {}),
  })
  for (const { threadId, messages } of conversations.threads) {
    const thread = await memory.thread(threadId, { resource: RESOURCE })
    await thread.append(messages)
  }
  await memory.settled()
  return memory
}

async function rankingsOf(
  memory: ReturnType<typeof createMemory>,
  conversations: ResourceConversations,
): Promise<RankedHit[][]> {
  const resource = memory.resource(RESOURCE)
  const rankings: RankedHit[][] = []
  for (const { question } of conversations.questions)
    rankings.push(await resource.query(question, { limit: K }))
  return rankings
}

/** `size` messages of the generated kind, spread evenly over the resource's threads (seeds 1, 2, …). */
function messagesFor(size: number): ConversationMessage[][] {
  const perThread = size / THREAD_COUNT
  const threads: ConversationMessage[][] = Array.from({ length: THREAD_COUNT }, () => [])
  for (let seed = 1; threads[0]!.length < perThread; seed++) {
    const { threads: generated } = resourceConversations(seed)
    for (const [index, { messages }] of generated.entries())
      threads[index]!.push(...messages.slice(0, perThread - threads[index]!.length))
  }
  return threads
}

/** A store holding `size` items over 20 threads, bound to one resource unless `bind` is false. */
async function filledStore(size: number, { bind = true } = {}): Promise<StrataStore> {
  const store = inMemoryStore()
  const memory = createMemory({ store })
  for (const [index, messages] of messagesFor(size).entries()) {
    const threadId = `chat-${String(index).padStart(2, '0')}`
    const thread = await memory.thread(threadId, bind ? { resource: RESOURCE } : {})
    for (let start = 0; start < messages.length; start += 1_000)
      await thread.append(messages.slice(start, start + 1_000))
  }
  await memory.settled()
  return store
}

const ms = (value: number) => `${significant(value)} ms`

/**
 * A resource's recall and speed (issue 25): recall@5 of word ranking, hybrid ranking (test embedder)
 * and a brute-force word-overlap count on 120 planted questions over 20 threads; `query` latency at
 * 1k, 10k and 100k items (warm median, cold first query); and what working memory and recalls add to
 * a `context()` at 10k items against the same thread without resource features.
 */
const benchmark: Benchmark = {
  name: 'resource',
  description:
    'resource recall@5 (words, hybrid, word-overlap baseline), query latency at 1k–100k items, context cost',
  async run({ progress }) {
    const rows: BenchRow[] = []
    const notes: string[] = []

    // 1. recall@5.
    const conversations = resourceConversations()
    const { questions } = conversations
    const words = recallAtK(
      questions,
      await rankingsOf(await recallMemory(conversations, false), conversations),
      K,
    )
    const hybrid = recallAtK(
      questions,
      await rankingsOf(await recallMemory(conversations, true), conversations),
      K,
    )
    const overlap = recallAtK(
      questions,
      questions.map(({ question }) => wordOverlapRanking(conversations, question, K)),
      K,
    )
    const params = { questions: questions.length, threads: THREAD_COUNT, k: K }
    const baselineName = 'brute-force word overlap (count of shared words)'
    rows.push(
      rowOf('recall/words', params, { strata: words, baseline: overlap }, { unit: 'share', baselineName }),
      rowOf('recall/hybrid', params, { strata: hybrid, baseline: overlap }, { unit: 'share', baselineName }),
    )
    notes.push(
      `recall@${K} on ${questions.length} questions over ${THREAD_COUNT} threads: words ${significant(words)}, ` +
        `hybrid ${significant(hybrid)}, word-overlap baseline ${significant(overlap)} — ` +
        `word ranking ${words >= overlap ? '≥' : '<'} baseline, hybrid ${hybrid >= overlap ? '≥' : '<'} baseline.`,
    )
    progress('resource: recall measured')

    // 2. query latency.
    const texts = questions.slice(0, 12).map(({ question }) => question)
    for (const size of SIZES) {
      const started = performance.now()
      const store = await filledStore(size)
      progress(`resource: ${size} items built in ${((performance.now() - started) / 1000).toFixed(1)} s`)
      const coldTimes: number[] = []
      for (const text of texts.slice(0, size >= 100_000 ? 3 : 5)) {
        const resource = createMemory({ store }).resource(RESOURCE)
        const start = performance.now()
        await resource.query(text, { limit: 10 })
        coldTimes.push(performance.now() - start)
      }
      const resource = createMemory({ store }).resource(RESOURCE)
      let next = 0
      const warm = await measure({
        strata: () => resource.query(texts[next++ % texts.length]!, { limit: 10 }),
        samples: 11,
        maxMs: 10_000,
      })
      const cold = median(coldTimes)
      rows.push(rowOf('query/warm', { items: size }, warm))
      rows.push(rowOf('query/cold', { items: size }, { strata: cold, baseline: null }))
      if (size === 100_000)
        notes.push(
          `query at 100k items, word ranking: warm median ${ms(warm.strata)}, cold first query ${ms(cold)} — ` +
            `target ≤ ${QUERY_TARGET_MS} ms ${warm.strata <= QUERY_TARGET_MS ? 'met' : 'NOT met'}.`,
        )
      progress(`resource: query at ${size} items measured`)
    }

    // 3. what working memory and recalls add to a context.
    const store = await filledStore(CONTEXT_SIZE)
    const plainStore = await filledStore(CONTEXT_SIZE, { bind: false })
    const withResource = createMemory({
      store,
      resources: {
        workingMemory: { template: '# User\n- Name:\n- Preferences:' },
        recall: { limit: 5 },
      },
    })
    await withResource
      .resource(RESOURCE)
      .setWorkingMemory('# User\n- Name: Ana\n- Preferences: window seats', {
        version: 0,
      })
    const bound = await withResource.thread('chat-00', { resource: RESOURCE })
    // The same thread content in a memory without resource features (no binding, no slots).
    const plain = await createMemory({ store: plainStore }).thread('chat-00')
    let turn = 0
    const newTurn = (thread: typeof bound) => async () => {
      await thread.append({ role: 'user', content: texts[turn++ % texts.length]! })
      return thread.context()
    }
    const perTurn = await measure({ strata: newTurn(bound), baseline: newTurn(plain), samples: 11 })
    const repeated = await measure({
      strata: () => bound.context(),
      baseline: () => plain.context(),
      samples: 11,
    })
    const contextBaseline = 'the same thread without working memory or recalls'
    rows.push(
      rowOf('context/new-turn', { items: CONTEXT_SIZE, recall: 5 }, perTurn, {
        baselineName: contextBaseline,
      }),
      rowOf('context/repeat', { items: CONTEXT_SIZE, recall: 5 }, repeated, {
        baselineName: contextBaseline,
      }),
    )
    const added = perTurn.strata - perTurn.baseline!
    notes.push(
      `context at ${CONTEXT_SIZE.toLocaleString('en-US')} items, a new turn (append + context): ` +
        `${ms(perTurn.strata)} with working memory and recalls, ${ms(perTurn.baseline!)} without — ` +
        `adds ${ms(added)} (target ≤ ${CONTEXT_TARGET_MS} ms ${added <= CONTEXT_TARGET_MS ? 'met' : 'NOT met'}); ` +
        `a repeated context of the same turn adds ${ms(repeated.strata - repeated.baseline!)}.`,
    )
    progress('resource: context measured')
    return { rows, notes }
  },
}

export default benchmark
