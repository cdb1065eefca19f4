import { describe, expect, it } from 'vitest'
import { memoryTools } from '../content'
import { StrataError } from '../errors'
import type { RewindEvent } from '../events'
import type { Item, MessageInput } from '../items'
import { createMemory, type Thread } from '../memory'
import type { StrataStore } from '../stores'
import type { Summarizer } from '../summarizers'
import { useSuiteStore } from './suite-store'

/** `role: text` per active item, `type` for the others: what a reader of the log sees. */
export const itemTexts = (items: readonly Item[]): string[] =>
  items.map((item) =>
    item.type === 'message'
      ? `${item.role}: ${item.content.map((part) => (part.type === 'text' ? part.text : part.type)).join('')}`
      : item.type === 'summary'
        ? `summary(${item.tier})`
        : item.type,
  )

/** What a store holds of a thread, to compare before and after a refused operation. */
async function storedData(store: StrataStore, threadId: string) {
  const [active, archive, head] = await Promise.all([
    store.read(threadId),
    store.readArchive(threadId),
    store.head(threadId),
  ])
  return { active, archive, head }
}

/** A call and its result, as a model and a tool write them. */
const toolTurn = (toolCallId: string, city: string): MessageInput[] => [
  {
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId, toolName: 'weather', input: { city } }],
  },
  {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId, toolName: 'weather', output: `Sunny in ${city}` }],
  },
]

/** A summarizer whose episodic summaries carry one fact. */
const summarizer: Summarizer = {
  name: 'test',
  async summarize(items, options) {
    return {
      summary: `${options.tier} of ${items.length} items`,
      facts: options.tier === 'episodic' ? [{ text: 'The user lives in Lyon.', confidence: 0.9 }] : [],
    }
  },
}

/**
 * `thread.rewind()` run against one store: a regenerated answer and an edited message are archived
 * (never deleted) and found again by `memory_query`, a reopened thread derives the same state, a
 * concurrent writer makes it a typed conflict, and unsafe rewinds are refused with nothing changed.
 * Each test gets a fresh store from `factory`.
 *
 * @example
 * describeThreadRewind('fileStore', () => fileStore({ dir: temporaryDirectory() }))
 */
export function describeThreadRewind(name: string, factory: () => StrataStore | Promise<StrataStore>): void {
  describe(`thread.rewind: ${name}`, () => {
    const suite = useSuiteStore(factory)
    const { options } = suite

    async function chat(thread: Thread, turns: number) {
      for (let turn = 1; turn <= turns; turn++) {
        await thread.append({ role: 'user', content: `Question ${turn}` })
        await thread.append({ role: 'assistant', content: `Answer ${turn}` })
      }
    }

    it('regenerates an answer: the old one moves to the archive, where memory_query finds it', async () => {
      const memory = createMemory(options())
      const events: RewindEvent[] = []
      memory.on('rewind', (event) => events.push(event))
      const thread = await memory.thread('rewind.regenerate')
      await chat(thread, 2)
      const [question, answer] = (await thread.items()).slice(-2)

      const result = await thread.rewind({ afterSeq: question!.seq, expectedLastSeq: answer!.seq })
      expect(itemTexts(result.archived)).toEqual(['assistant: Answer 2'])
      expect(events).toEqual([
        { threadId: 'rewind.regenerate', afterSeq: question!.seq, archived: result.archived },
      ])
      await thread.append({ role: 'assistant', content: 'A better answer' })
      expect(itemTexts(await thread.items())).toEqual([
        'user: Question 1',
        'assistant: Answer 1',
        'user: Question 2',
        'assistant: A better answer',
      ])
      // The new answer belongs to the question's turn, as the old one did.
      expect((await thread.items()).at(-1)!.turnId).toBe(question!.turnId)
      expect(itemTexts(await suite.store.readArchive('rewind.regenerate'))).toEqual(['assistant: Answer 2'])

      const found = await memoryTools(thread).memory_query.execute({ text: 'Answer 2' })
      if ('error' in found) throw new Error(found.error.message)
      // Ranked first: the other answers share only the word "Answer".
      expect(found.results[0]).toMatchObject({ id: answer!.id, where: 'archive', type: 'message' })
      const read = await memoryTools(thread).memory_retrieve.execute({ id: answer!.id })
      expect(read).toMatchObject({ where: 'archive', content: 'Answer 2' })
      const { messages } = await thread.context()
      expect(JSON.stringify(messages)).not.toContain('Answer 2')
    })

    it('edits a message: what followed it is archived, and a reopened thread derives the same state', async () => {
      const memory = createMemory(options())
      const thread = await memory.thread('rewind.edit')
      await chat(thread, 3)
      const items = await thread.items()
      const edited = items[2]! // Question 2
      await thread.rewind({ afterSeq: edited.seq - 1 })
      await thread.append({ role: 'user', content: 'Question 2, edited' })
      await thread.append(toolTurn('call-1', 'Lyon'))
      await thread.append({ role: 'assistant', content: 'Sunny.' })
      expect(itemTexts(await thread.items())).toEqual([
        'user: Question 1',
        'assistant: Answer 1',
        'user: Question 2, edited',
        'assistant: tool-call',
        'tool: tool-result',
        'assistant: Sunny.',
      ])
      expect(itemTexts(await suite.store.readArchive('rewind.edit'))).toEqual([
        'user: Question 2',
        'assistant: Answer 2',
        'user: Question 3',
        'assistant: Answer 3',
      ])
      // Turn numbers go on from the highest ever used: the archived turns keep theirs.
      const status = await thread.status()
      expect(status.turnId).toBe('turn_0004')
      expect(status.items).toMatchObject({ active: 6, archived: 4 })

      const reopened = await createMemory(options()).thread('rewind.edit')
      expect(await reopened.items()).toEqual(await thread.items())
      expect(reopened.level).toBe(thread.level)
      expect(await reopened.status()).toEqual(await thread.status())
      expect(await reopened.toolInteractions()).toEqual(await thread.toolInteractions())
      expect(await reopened.context()).toEqual(await thread.context())
    })

    it('answers a kept question in its own turn when later turns were archived', async () => {
      const memory = createMemory(options())
      const thread = await memory.thread('rewind.turns')
      await chat(thread, 3)
      const question = (await thread.items())[2]! // Question 2, turn 2
      await thread.rewind({ afterSeq: question.seq })
      expect((await thread.status()).turnId).toBe(question.turnId)
      const [answer] = await thread.append({ role: 'assistant', content: 'Answer 2, again' })
      expect(answer!.turnId).toBe(question.turnId)
      // The archived turn 3's number is not used again.
      const [next] = await thread.append({ role: 'user', content: 'Question 3, again' })
      expect(next!.turnId).toBe('turn_0004')

      const reopened = await createMemory(options()).thread('rewind.turns')
      expect(await reopened.status()).toEqual(await thread.status())
      expect(await reopened.items()).toEqual(await thread.items())
    })

    it('keeps the level, scopes and turn of a scope it rewinds inside', async () => {
      const memory = createMemory(options())
      const thread = await memory.thread('rewind.scope')
      await chat(thread, 1)
      await thread.enter('project', { title: 'Garden' })
      await thread.enter('task', { title: 'Plant trees' })
      await chat(thread, 2)
      const question = (await thread.items()).at(-2)!
      await thread.rewind({ afterSeq: question.seq })
      expect(thread.level).toBe('task')
      expect(thread.scopes.map((scope) => scope.title)).toEqual(['Garden', 'Plant trees'])
      await thread.append({ role: 'assistant', content: 'Dig first.' })
      const exit = await thread.exit({ outcome: 'complete' })
      // The archived answer is no longer one of the scope's actions.
      expect(exit.transition.agentFacingMessage).toContain('<4 task actions')

      const reopened = await createMemory(options()).thread('rewind.scope')
      expect(reopened.level).toBe('project')
      expect(reopened.scopes).toEqual(thread.scopes)
      expect(await reopened.items()).toEqual(await thread.items())
    })

    it('keeps summaries and facts written after the point that cover only what precedes it', async () => {
      const memory = createMemory(
        options({ summarizer, compaction: { budget: { maxOutputTokens: 1_000, rawTailTurns: 1 } } }),
      )
      const thread = await memory.thread('rewind.compacted')
      await chat(thread, 4)
      await thread.append({ role: 'user', content: 'Question 5' })
      await thread.compact({ force: true })
      await thread.append({ role: 'assistant', content: 'Answer 5' })
      const items = await thread.items()
      expect(itemTexts(items)).toEqual([
        'user: Question 4',
        'assistant: Answer 4',
        'user: Question 5',
        'summary(episodic)',
        'fact',
        'assistant: Answer 5',
      ])
      const facts = (await thread.status()).compaction.facts

      // Regenerate answer 5 from its question: the summary and fact sit after the point and stay.
      const result = await thread.rewind({ afterSeq: items[2]!.seq })
      expect(itemTexts(result.archived)).toEqual(['assistant: Answer 5'])
      expect(itemTexts(result.kept)).toEqual(['summary(episodic)', 'fact'])
      expect(itemTexts(await thread.items())).toEqual(itemTexts(items.slice(0, 5)))
      expect((await thread.status()).compaction.facts).toBe(facts)
      expect(JSON.stringify((await thread.context()).messages)).toContain('episodic of')
    })

    it('refuses a point inside a compacted range, and changes nothing', async () => {
      const memory = createMemory(
        options({ summarizer, compaction: { budget: { maxOutputTokens: 1_000, rawTailTurns: 1 } } }),
      )
      const thread = await memory.thread('rewind.inside')
      await chat(thread, 4)
      await thread.compact({ force: true })
      const before = await storedData(suite.store, 'rewind.inside')
      const error = await thread.rewind({ afterSeq: 2 }).catch((caught: unknown) => caught)
      expect(StrataError.isInstance(error, 'STRATA_REWIND_UNSAFE')).toBe(true)
      expect((error as StrataError).details).toMatchObject({ reason: 'compacted' })
      expect((error as Error).message).toMatch(
        /already compacted.*Nothing was archived\. Rewind to a point at or after seq/,
      )
      expect(await storedData(suite.store, 'rewind.inside')).toEqual(before)
    })

    it('refuses to split a tool call from its result, or to undo a scope change, and changes nothing', async () => {
      const memory = createMemory(options())
      const thread = await memory.thread('rewind.unsafe')
      await thread.append({ role: 'user', content: 'Weather?' })
      const [call] = await thread.append(toolTurn('call-1', 'Lyon'))
      await thread.append({ role: 'assistant', content: 'Sunny.' })
      await thread.enter('project', { title: 'Trip' })
      await thread.append({ role: 'user', content: 'Plan it' })
      const before = await storedData(suite.store, 'rewind.unsafe')

      const split = await thread.rewind({ afterSeq: call!.seq }).catch((caught: unknown) => caught)
      expect(StrataError.isInstance(split, 'STRATA_REWIND_UNSAFE')).toBe(true)
      expect((split as StrataError).details).toMatchObject({
        reason: 'tool-call-split',
        toolCallId: 'call-1',
      })
      const scope = await thread.rewind({ afterSeq: call!.seq + 1 }).catch((caught: unknown) => caught)
      expect(StrataError.isInstance(scope, 'STRATA_REWIND_UNSAFE')).toBe(true)
      expect((scope as StrataError).details).toMatchObject({ reason: 'scope-changed' })
      expect((scope as Error).message).toContain('"Trip" was opened after that point')

      for (const bad of [
        { afterSeq: -1 },
        { afterSeq: 1.5 },
        { afterSeq: 99 },
        { afterSeq: 1, expectedLastSeq: -2 },
      ]) {
        await expect(thread.rewind(bad)).rejects.toMatchObject({ code: 'STRATA_INVALID_OPTIONS' })
      }
      await expect(thread.rewind(undefined as never)).rejects.toMatchObject({
        code: 'STRATA_INVALID_OPTIONS',
      })
      expect(await storedData(suite.store, 'rewind.unsafe')).toEqual(before)
      expect(thread.level).toBe('project')
    })

    it('is a typed conflict when another writer appended, and changes nothing', async () => {
      const memory = createMemory(options())
      const thread = await memory.thread('rewind.race')
      await chat(thread, 2)
      const divergence = await thread.divergence(
        [
          { role: 'user', content: 'Question 1' },
          { role: 'assistant', content: 'Answer 1' },
          { role: 'user', content: 'Question 2' },
        ],
        { history: 'full' },
      )
      expect(divergence).toMatchObject({ afterSeq: 3, lastKeptSeq: 3, dropped: 1, lastSeq: 4 })

      // Another process appends between the decision and the rewind.
      const other = await createMemory(options()).thread('rewind.race')
      await other.append({ role: 'user', content: 'Question 3' })
      const before = await storedData(suite.store, 'rewind.race')
      await expect(
        thread.rewind({ afterSeq: divergence!.afterSeq, expectedLastSeq: divergence!.lastSeq }),
      ).rejects.toMatchObject({ code: 'STRATA_SEQ_CONFLICT' })
      expect(await storedData(suite.store, 'rewind.race')).toEqual(before)

      // One that lands while the rewind archives: the store's seq check refuses the archive.
      const racing = new Proxy(suite.store, {
        get(target, property, receiver) {
          if (property !== 'archive') {
            const value = Reflect.get(target, property, receiver)
            return typeof value === 'function' ? value.bind(target) : value
          }
          return async (...args: Parameters<StrataStore['archive']>) => {
            await other.append({ role: 'user', content: 'Question 4' })
            return target.archive(...args)
          }
        },
      })
      const raced = await createMemory(options({ store: racing })).thread('rewind.race')
      const error = await raced.rewind({ afterSeq: 3 }).catch((caught: unknown) => caught)
      expect(StrataError.isInstance(error, 'STRATA_SEQ_CONFLICT')).toBe(true)
      expect((error as Error).message).toContain('nothing was archived')
      const after = await storedData(suite.store, 'rewind.race')
      expect(after.archive).toEqual([])
      expect(itemTexts(after.active).slice(-2)).toEqual(['user: Question 3', 'user: Question 4'])
    })
  })
}
