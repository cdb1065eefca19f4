import { describe, expect, it } from 'vitest'
import { unseenMessages } from '../history'
import type { MessageInput } from '../items'
import { createMemory, type Thread, type UnseenOptions } from '../memory'
import type { StrataStore } from '../stores'
import { hasSlotMethods } from '../stores/store-check'
import { storeWithOverrides } from '../stores/store-overrides'
import { recordingTracer } from '../telemetry/testing/recording-tracer'
import { DIGEST_SLOT, DIGEST_STATE_KEY } from '../thread-state/log-digest'
import { SEALING } from '../thread-state/sealed-items'
import { useSuiteStore } from './suite-store'

/** What an open keeps whole at a log's end by default (see `SEALING`), restored after each test that lowers it. */
const SEALED_KEEP = SEALING.keepConversation
const SEALED_FROM = SEALING.fromItems

/** The calls a store wrapper saw, and the archived items they returned. */
export interface StoreReads {
  readArchive: number
  archivedItems: number
  read: number
  activeItems: number
}

/** The state and slot writes a store wrapper saw, and their size as JSON. */
export interface StoreWrites {
  setState: number
  /** Characters of the states written, as JSON. */
  stateBytes: number
  setSlot: number
  /** Characters of the slot values written, as JSON. */
  slotBytes: number
}

/**
 * `store` with its reads counted (`readArchive` calls and the items they returned; the same of
 * `read`) and its state and slot writes (calls and characters), everything else the store's own.
 */
export function countingStore(store: StrataStore): {
  store: StrataStore
  reads: StoreReads
  writes: StoreWrites
} {
  const reads: StoreReads = { readArchive: 0, archivedItems: 0, read: 0, activeItems: 0 }
  const writes: StoreWrites = { setState: 0, stateBytes: 0, setSlot: 0, slotBytes: 0 }
  const overrides = new Map<PropertyKey, unknown>([
    [
      'setState',
      async (...args: Parameters<StrataStore['setState']>) => {
        await store.setState(...args)
        writes.setState++
        writes.stateBytes += JSON.stringify(args[1]).length
      },
    ],
    [
      'readArchive',
      async (...args: Parameters<StrataStore['readArchive']>) => {
        const items = await store.readArchive(...args)
        reads.readArchive++
        reads.archivedItems += items.length
        return items
      },
    ],
    [
      'read',
      async (...args: Parameters<StrataStore['read']>) => {
        const items = await store.read(...args)
        reads.read++
        reads.activeItems += items.length
        return items
      },
    ],
  ])
  const { setSlot } = store
  if (typeof setSlot === 'function') {
    overrides.set('setSlot', async (...args: Parameters<NonNullable<StrataStore['setSlot']>>) => {
      await setSlot.apply(store, args)
      writes.setSlot++
      writes.slotBytes += JSON.stringify(args[2] ?? null).length
    })
  }
  return { store: storeWithOverrides(store, overrides), reads, writes }
}

/**
 * `store` as a thread written before log digests looks: its state without the digest, and no digest
 * slot, so an open replays the archive (the fallback every older thread takes once).
 */
export function storeWithoutDigest(store: StrataStore): StrataStore {
  const overrides = new Map<PropertyKey, unknown>([
    [
      'getState',
      async (threadId: string) => {
        const state = await store.getState(threadId)
        if (state === undefined) return undefined
        const { [DIGEST_STATE_KEY]: _, ...rest } = state
        return rest
      },
    ],
  ])
  const { getSlot } = store
  if (typeof getSlot === 'function') {
    overrides.set('getSlot', async (threadId: string, name: string) =>
      name === DIGEST_SLOT ? undefined : getSlot.call(store, threadId, name),
    )
  }
  return storeWithOverrides(store, overrides)
}

/**
 * Removes the thread's stored digest (its slot, and the state's key), as a thread written before log
 * digests has none.
 */
export async function dropDigest(store: StrataStore, threadId: string): Promise<void> {
  if (hasSlotMethods(store)) await store.setSlot(threadId, DIGEST_SLOT, undefined)
  const state = await store.getState(threadId)
  if (state === undefined) return
  const { [DIGEST_STATE_KEY]: _, ...rest } = state
  await store.setState(threadId, rest)
}

/**
 * Moves the thread's digest from its slot into its state, as a store with slots finds a thread written
 * by a release before slots.
 */
export async function digestInState(store: StrataStore, threadId: string): Promise<void> {
  if (!hasSlotMethods(store)) return
  const digest = await store.getSlot(threadId, DIGEST_SLOT)
  if (digest === undefined) throw new Error(`thread '${threadId}' has no digest slot`)
  await store.setSlot(threadId, DIGEST_SLOT, undefined)
  await store.setState(threadId, { ...(await store.getState(threadId)), [DIGEST_STATE_KEY]: digest })
}

/** A turn of an agent: a request, a tool call and its result, an answer. */
export const agentTurn = (turn: number, text = `request ${turn}`): MessageInput[] => [
  { role: 'user', content: text, id: `user-${turn}` },
  {
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: `call-${turn}`, toolName: 'lookup', input: { turn } }],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: `call-${turn}`,
        toolName: 'lookup',
        output: `result of ${turn} `.repeat(20),
      },
    ],
  },
  { role: 'assistant', content: `answer ${turn}` },
]

/** What a reader of a thread sees: its context, views, status counters, level and scopes. */
export async function threadReading(thread: Thread) {
  const { messages, stats } = await thread.context()
  const status = await thread.status()
  return {
    messages,
    stats,
    views: await Promise.all(['global', 'project', 'task'].map((level) => thread.view(level))),
    items: status.items,
    tokens: status.tokens,
    level: thread.level,
    scopes: thread.scopes,
  }
}

/**
 * Opening a thread reads what contexts need, never the archive, on any store: a thread whose archive
 * is most of it opens, gives its context and takes appends (new ids, results of active calls) without
 * one `readArchive`; `memory_retrieve` of an archived item reads one page; a thread from before log
 * digests opens by reading its archive once, a page at a time, and the next write stores the digest.
 *
 * @example
 * describeThreadOpen('fileStore', () => fileStore({ dir: temporaryDirectory() }))
 */
export function describeThreadOpen(name: string, factory: () => StrataStore | Promise<StrataStore>): void {
  describe(`a thread's open reads no archive: ${name}`, () => {
    // Memories end with `settled()`: `close()` would close the suite's store too (a Redis store is done then).
    const suite = useSuiteStore(factory)
    const turns = 120
    /** Writing the long thread takes seconds on a file store under load. */
    const timeout = 120_000
    const options = () => suite.options({ compaction: { budget: { inputTokens: 3_000 } } })

    /** A thread of `turns` agent turns, compacted as it grew: most of it archived. */
    async function longThread(threadId: string) {
      const memory = createMemory(options())
      const thread = await memory.thread(threadId)
      for (let turn = 1; turn <= turns; turn++) {
        await thread.append(agentTurn(turn))
        if (turn % 10 === 0) await thread.compact({ force: true })
      }
      await thread.compact({ force: true })
      await memory.settled()
      const head = await suite.store.head(threadId)
      expect(head.archivedCount).toBeGreaterThan(turns * 3)
      return head
    }

    it(
      'opens, answers contexts and takes appends without reading the archive',
      async () => {
        await longThread('long')
        const { store, reads } = countingStore(suite.store)
        const memory = createMemory({ ...options(), store })
        const thread = await memory.thread('long')
        const read = await threadReading(thread)
        await thread.append({ role: 'user', content: 'a new request', id: 'fresh-id' })
        await thread.append(agentTurn(turns + 1).slice(1))
        await memory.settled()
        expect(reads.readArchive).toBe(0)
        expect(reads.archivedItems).toBe(0)

        // A full replay of the archive (the fallback) reads the same thread the same way.
        const replayed = createMemory({ ...options(), store: storeWithoutDigest(suite.store) })
        const before = await createMemory(options()).thread('long')
        expect(await threadReading(await replayed.thread('long'))).toEqual(await threadReading(before))
        expect(read.items.archived).toBeGreaterThan(turns * 3)
        await replayed.settled()
      },
      timeout,
    )

    it(
      'checks an archived id and an archived call by reading a page, not the archive',
      async () => {
        await longThread('checks')
        const { store, reads } = countingStore(suite.store)
        const thread = await createMemory({ ...options(), store }).thread('checks')
        await expect(thread.append({ role: 'user', content: 'again', id: 'user-3' })).rejects.toMatchObject({
          code: 'STRATA_DUPLICATE_ITEM_ID',
        })
        expect(reads.readArchive).toBe(1)
        // A late result of an archived call keeps its call's turn.
        const [late] = await thread.append({
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'call-2', toolName: 'lookup', output: 'late' }],
        })
        expect(late!.turnId).toBe('turn_0002')
        expect(reads.readArchive).toBe(2)
      },
      timeout,
    )

    it(
      'memory_retrieve of an archived item reads one page',
      async () => {
        await longThread('retrieve')
        const [archived] = await suite.store.readArchive('retrieve', { fromSeq: 40, limit: 1 })
        const { store, reads } = countingStore(suite.store)
        const thread = await createMemory({ ...options(), store }).thread('retrieve')
        const found = await thread.content.retrieve({ id: archived!.id })
        expect(found).toMatchObject({ id: archived!.id, where: 'archive' })
        expect(reads.readArchive).toBe(1)
        await expect(thread.content.retrieve({ id: 'no-such-id' })).rejects.toMatchObject({
          code: 'STRATA_MEMORY_NOT_FOUND',
        })
        // An id the filter rules out reads nothing (but for a rare false "maybe": one page more).
        expect(reads.readArchive).toBeLessThanOrEqual(2)
      },
      timeout,
    )

    it(
      'seals the items of closed scopes on open: the same contexts, views and writes, and no read back for them',
      async () => {
        // No budget (its compactions read every item, so an open under one seals nothing).
        const plain = () => suite.options({})
        const memory = createMemory(plain())
        const thread = await memory.thread('scopes')
        for (let task = 1; task <= 12; task++) {
          await thread.append({ role: 'user', content: `request ${task}` })
          await thread.enter('task', { title: `task ${task}` })
          // Task 3's call gets its result late, after its scope closed.
          await thread.append(
            agentTurn(task).filter((_message, index) => index > 0 && (task !== 3 || index !== 2)),
          )
          await thread.exit({ outcome: 'complete', summary: `task ${task} done` })
          await thread.append({ role: 'assistant', content: `answer ${task}` })
        }
        await memory.settled()
        const open = async (keep: number, fromItems = 0) => {
          SEALING.keepConversation = keep
          SEALING.fromItems = fromItems
          try {
            const counted = countingStore(suite.store)
            const { tracer, spans } = recordingTracer()
            const opened = await createMemory({
              ...plain(),
              store: counted.store,
              telemetry: { tracer },
            }).thread('scopes')
            const sealed = spans.find((span) => span.name === 'strata.thread.open')?.attributes[
              'strata.open.sealed_items'
            ]
            return { thread: opened, reads: counted.reads, sealed: Number(sealed) }
          } finally {
            SEALING.keepConversation = SEALED_KEEP
            SEALING.fromItems = SEALED_FROM
          }
        }
        const sealed = await open(2)
        const whole = await open(Number.MAX_SAFE_INTEGER)
        // Each task's opening, call, result and answer (task 3: no result), but for the two newest conversation
        // messages and what follows the older of them (task 12's answer on).
        expect(sealed.sealed).toBe(12 * 4 - 1 - 1)
        expect(whole.sealed).toBe(0)
        // A log shorter than `fromItems` stays whole: a page load reading it all would read it twice.
        expect((await open(2, 1_000)).sealed).toBe(0)
        // A log that reaches `fromItems` seals what a broader item covers before that point too.
        expect((await suite.store.head('scopes')).activeCount).toBeGreaterThan(2 * 40)
        expect((await open(2, 40)).sealed).toBe(sealed.sealed)
        // Contexts and views read nothing back: the one `read` is the open's (the log, or a streamed
        // open's kept tail read back).
        for (const level of ['global', 'project', 'task']) {
          await sealed.thread.context({ level })
          await sealed.thread.view(level)
        }
        expect(sealed.reads.read).toBe(1)
        expect(await threadReading(sealed.thread)).toEqual(await threadReading(whole.thread))
        expect(await sealed.thread.items()).toEqual(await whole.thread.items())
        expect(await sealed.thread.transcript()).toEqual(await whole.thread.transcript())
        expect(await sealed.thread.toolInteractions()).toEqual(await whole.thread.toolInteractions())
        // A late result for a sealed call keeps its call's level and turn.
        const late: MessageInput = {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'call-3', toolName: 'lookup', output: 'late' }],
        }
        expect((await sealed.thread.append(late))[0]).toMatchObject({ level: 'task', turnId: 'turn_0003' })
        await sealed.thread.append({ role: 'user', content: 'and now?' })
        expect(await threadReading((await open(Number.MAX_SAFE_INTEGER)).thread)).toEqual(
          await threadReading(sealed.thread),
        )
        await memory.settled()
      },
      timeout,
    )

    it(
      'tells the unseen messages of a sealed thread from its stored tail, reading no whole log back',
      async () => {
        const plain = () => suite.options({})
        const memory = createMemory(plain())
        const writer = await memory.thread('unseen')
        for (let task = 1; task <= 40; task++) {
          await writer.append({ role: 'user', content: `request ${task}` })
          await writer.enter('task', { title: `task ${task}` })
          await writer.append(agentTurn(task).slice(1))
          await writer.exit({ outcome: 'complete', summary: `task ${task} done` })
          await writer.append({ role: 'assistant', content: `answer ${task}` })
        }
        await memory.settled()
        // What a client re-sends: the conversation as stored, and a new request.
        const conversation = (await writer.items()).flatMap((item) =>
          item.type === 'message' && item.scope === undefined
            ? [{ role: item.role, content: item.content }]
            : [],
        )
        const request = { role: 'user', content: [{ type: 'text' as const, text: 'and now?' }] }
        const calls: [readonly { role: string }[], UnseenOptions<{ role: string }>][] = [
          [[...conversation, request], { history: 'full', window: 16 }],
          [[...conversation.slice(-5), request], { window: 16 }],
          [conversation, { window: 16 }],
          [[request], { history: 'new', window: 16 }],
          // A regenerated answer: the stored one left out.
          [[...conversation.slice(0, -1), request], { history: 'full', window: 16 }],
        ]
        SEALING.keepConversation = 2
        SEALING.fromItems = 0
        const counted = countingStore(suite.store)
        const { tracer, spans } = recordingTracer()
        let thread: Thread
        try {
          thread = await createMemory({ ...plain(), store: counted.store, telemetry: { tracer } }).thread(
            'unseen',
          )
        } finally {
          SEALING.keepConversation = SEALED_KEEP
          SEALING.fromItems = SEALED_FROM
        }
        const sealed = spans.find((span) => span.name === 'strata.thread.open')?.attributes[
          'strata.open.sealed_items'
        ]
        expect(Number(sealed)).toBeGreaterThan(40 * 3)
        const head = await suite.store.head('unseen')
        const opened = { ...counted.reads }
        const told = []
        for (const [incoming, options] of calls) told.push(await thread.unseen(incoming, options))
        // At most one read, of the sealed items in the compared tail (16 messages: 4 tasks'), and nothing written.
        expect(counted.reads.read - opened.read).toBeLessThanOrEqual(1)
        expect(counted.reads.activeItems - opened.activeItems).toBeLessThan(head.activeCount / 8)
        expect(counted.writes).toEqual({ setState: 0, stateBytes: 0, setSlot: 0, slotBytes: 0 })
        expect(await suite.store.head('unseen')).toEqual(head)
        // The same as `unseenMessages` on every active item, which reads the sealed ones back.
        const items = await thread.items()
        expect(counted.reads.activeItems - opened.activeItems).toBeGreaterThan(head.activeCount / 2)
        expect(told).toEqual(calls.map(([incoming, options]) => unseenMessages(items, incoming, options)))
        expect(told.map(({ unseen, aligned }) => [unseen.length, aligned])).toEqual([
          [1, true],
          [1, true],
          [0, true],
          [1, true],
          [conversation.length, false],
        ])
      },
      timeout,
    )

    it(
      'opens a thread from before log digests by reading its archive once, a page at a time',
      async () => {
        const head = await longThread('old')
        await dropDigest(suite.store, 'old')
        const first = countingStore(suite.store)
        const memory = createMemory({ ...options(), store: first.store })
        const thread = await memory.thread('old')
        expect(first.reads.archivedItems).toBe(head.archivedCount)
        expect(first.reads.readArchive).toBeGreaterThanOrEqual(Math.ceil(head.archivedCount / 1000))
        const reading = await threadReading(thread)
        expect(reading.items.archived).toBe(head.archivedCount)
        // The next write stores the digest; later opens read no archive.
        await thread.append({ role: 'user', content: 'next', id: 'after-upgrade' })
        await memory.settled()
        const second = countingStore(suite.store)
        const reopened = await createMemory({ ...options(), store: second.store }).thread('old')
        expect((await threadReading(reopened)).items.archived).toBe(head.archivedCount)
        expect(second.reads.readArchive).toBe(0)
      },
      timeout,
    )

    it(
      'a usage report writes a state without the digest (on a store with slots), and opens still read no archive',
      async () => {
        await longThread('usage')
        const slots = hasSlotMethods(suite.store)
        const { store, writes } = countingStore(suite.store)
        const memory = createMemory({ ...options(), store })
        const thread = await memory.thread('usage')
        await thread.reportUsage({ inputTokens: 1_234 })
        await thread.reportUsage({ inputTokens: 1_300, outputTokens: 20 })
        await memory.settled()
        expect(writes.setState).toBe(2)
        expect(writes.setSlot).toBe(0)
        const state = (await suite.store.getState('usage'))!
        expect(state.lastUsage).toMatchObject({ inputTokens: 1_300 })
        const digest = slots ? await suite.store.getSlot!('usage', DIGEST_SLOT) : state[DIGEST_STATE_KEY]
        const digestBytes = JSON.stringify(digest).length
        // The digest of a few hundred archived items is kilobytes; a state without it a few hundred bytes.
        expect(digestBytes).toBeGreaterThan(2_000)
        if (slots) {
          expect(state[DIGEST_STATE_KEY]).toBeUndefined()
          expect(writes.stateBytes).toBeLessThan(digestBytes / 2)
        } else {
          expect(writes.stateBytes).toBeGreaterThan(2 * digestBytes)
        }
        const reopened = countingStore(suite.store)
        const again = await createMemory({ ...options(), store: reopened.store }).thread('usage')
        expect((await threadReading(again)).items.archived).toBeGreaterThan(turns * 3)
        expect(reopened.reads.readArchive).toBe(0)
      },
      timeout,
    )

    it(
      "a thread written before slots opens from its state's digest; the next state write moves it to the slot",
      async ({ skip }) => {
        if (!hasSlotMethods(suite.store)) skip()
        await longThread('legacy')
        const slotted = await suite.store.getSlot!('legacy', DIGEST_SLOT)
        await digestInState(suite.store, 'legacy')
        const first = countingStore(suite.store)
        const memory = createMemory({ ...options(), store: first.store })
        const thread = await memory.thread('legacy')
        expect(first.reads.readArchive).toBe(0)
        await thread.reportUsage({ inputTokens: 500 })
        expect((await suite.store.getState('legacy'))?.[DIGEST_STATE_KEY]).toBeUndefined()
        expect(await suite.store.getSlot!('legacy', DIGEST_SLOT)).toEqual(slotted)
        // Moved once: the next write carries a small state and no slot.
        const movedBytes = first.writes.stateBytes
        await thread.reportUsage({ inputTokens: 600 })
        expect(first.writes.setSlot).toBe(1)
        expect(first.writes.stateBytes - movedBytes).toBeLessThan(JSON.stringify(slotted).length / 2)
        await memory.settled()
        const second = countingStore(suite.store)
        await threadReading(await createMemory({ ...options(), store: second.store }).thread('legacy'))
        expect(second.reads.readArchive).toBe(0)
      },
      timeout,
    )
  })
}
