import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CompactionOptions } from '../compaction'
import type { ContextMessage } from '../context'
import type { MessageInput } from '../items'
import { inMemoryStore } from '../stores'
import { referenceView } from '../testing/skip-level-scope'
import { createMemory } from './create-memory'
import type { Thread } from './thread'

type Operation =
  | { kind: 'user' | 'assistant'; text: string }
  | { kind: 'call'; tools: number }
  | { kind: 'result'; pick: number; isError: boolean }
  | { kind: 'action' }
  | { kind: 'provider'; answered: boolean }
  /** `skip` levels past the next narrower one (clamped to the narrowest): 0 enters the next level. */
  | { kind: 'enter'; skip: number }
  | { kind: 'exit'; outcome: 'complete' | 'cancelled' | 'aborted' }

const operations = {
  chat: fc.record({
    kind: fc.constantFrom('user' as const, 'assistant' as const),
    text: fc.string({ maxLength: 30 }),
  }),
  call: fc.record({ kind: fc.constant('call' as const), tools: fc.integer({ min: 1, max: 3 }) }),
  result: fc.record({ kind: fc.constant('result' as const), pick: fc.nat(), isError: fc.boolean() }),
  action: fc.record({ kind: fc.constant('action' as const) }),
  /** A call the provider runs (web search): its result, when it came, is in the same assistant message. */
  provider: fc.record({ kind: fc.constant('provider' as const), answered: fc.boolean() }),
  enter: fc.record({ kind: fc.constant('enter' as const), skip: fc.nat({ max: 2 }) }),
  exit: fc.record({
    kind: fc.constantFrom('exit' as const),
    outcome: fc.constantFrom('complete' as const, 'cancelled' as const, 'aborted' as const),
  }),
}
const operation: fc.Arbitrary<Operation> = fc.oneof(...Object.values(operations))
/** Long scopes: mostly requests, answers and actions, few exits. */
const longScopeOperation: fc.Arbitrary<Operation> = fc.oneof(
  { arbitrary: operations.chat, weight: 6 },
  { arbitrary: operations.call, weight: 1 },
  { arbitrary: operations.result, weight: 2 },
  { arbitrary: operations.action, weight: 3 },
  { arbitrary: operations.provider, weight: 1 },
  { arbitrary: operations.enter, weight: 2 },
  { arbitrary: operations.exit, weight: 1 },
)

/** Replays operations on a thread with a fixed clock and ids, skipping the ones that make no sense. */
async function replay(operations: readonly Operation[], seed = 'p', compaction?: CompactionOptions) {
  let tick = 0
  const memory = createMemory({
    store: inMemoryStore(),
    clock: () => 1_700_000_000_000 + tick++,
    generateId: () => `${seed}-${tick++}`,
    ...(compaction === undefined ? {} : { compaction }),
  })
  const thread = await memory.thread('property')
  const pending: string[] = []
  let calls = 0
  /** Scopes the application opened and has not closed, innermost last. */
  const opened: string[] = []
  /** Their levels. */
  const openedLevels: string[] = []
  for (const op of operations) {
    switch (op.kind) {
      case 'user':
      case 'assistant':
        await thread.append({ role: op.kind, content: op.text })
        break
      case 'call': {
        const content = Array.from({ length: op.tools }, () => {
          const toolCallId = `call-${calls++}`
          pending.push(toolCallId)
          return {
            type: 'tool-call' as const,
            toolCallId,
            toolName: `tool_${calls % 3}`,
            input: { n: calls },
          }
        })
        await thread.append({ role: 'assistant', content })
        break
      }
      case 'result': {
        if (pending.length === 0) break
        const [toolCallId] = pending.splice(op.pick % pending.length, 1)
        const message: MessageInput = {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: toolCallId!,
              toolName: 'tool',
              output: { ok: !op.isError },
              isError: op.isError,
            },
          ],
        }
        await thread.append(message)
        break
      }
      case 'action': {
        const toolCallId = `call-${calls++}`
        await thread.append({
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId, toolName: 'act', input: {} },
            { type: 'tool-result', toolCallId, toolName: 'act', output: 'done' },
          ],
        })
        break
      }
      case 'provider': {
        const toolCallId = `call-${calls++}`
        await thread.append({
          role: 'assistant',
          content: [
            { type: 'text', text: 'Searching.' },
            { type: 'tool-call', toolCallId, toolName: 'web_search', input: {}, providerExecuted: true },
            ...(op.answered
              ? [{ type: 'tool-result' as const, toolCallId, toolName: 'web_search', output: ['hit'] }]
              : []),
          ],
        })
        break
      }
      case 'enter': {
        const narrower = memory.ladder.levels.slice(memory.ladder.rank(thread.level) + 1)
        const level = narrower[Math.min(op.skip, narrower.length - 1)]
        if (level !== undefined) {
          await thread.enter(level, { title: `scope ${calls}` })
          opened.push(`scope ${calls}`)
          openedLevels.push(level)
        }
        break
      }
      case 'exit':
        if (thread.scopes.length > 0) {
          await thread.exit({ outcome: op.outcome })
          opened.pop()
          openedLevels.pop()
        }
        break
    }
  }
  return { memory, thread, opened, openedLevels }
}

/**
 * Invariant 1: every tool message answers exactly the calls the application runs of the assistant
 * message before it, in order; a call the provider runs is either answered right after it in its own
 * assistant message or still waiting; no other result is anywhere.
 */
function assertToolPairs(messages: readonly ContextMessage[]) {
  const appCalls = (message: ContextMessage | undefined) =>
    (message?.content ?? []).flatMap((part) =>
      part.type === 'tool-call' && part.providerExecuted !== true ? [part.toolCallId] : [],
    )
  messages.forEach((message, index) => {
    const resultIds = message.content.flatMap((part) =>
      part.type === 'tool-result' ? [part.toolCallId] : [],
    )
    if (message.role === 'tool') {
      const previous = messages[index - 1]
      expect(previous?.role).toBe('assistant')
      expect(resultIds).toEqual(appCalls(previous))
      return
    }
    if (message.role !== 'assistant') {
      expect(resultIds).toEqual([])
      return
    }
    message.content.forEach((part, at) => {
      if (part.type !== 'tool-result') return
      const call = message.content[at - 1]
      expect(call).toMatchObject({ type: 'tool-call', toolCallId: part.toolCallId, providerExecuted: true })
    })
    const calls = appCalls(message)
    const next = messages[index + 1]
    if (calls.length > 0) {
      expect(next?.role).toBe('tool')
      expect(next!.content.map((part) => (part as { toolCallId: string }).toolCallId)).toEqual(calls)
    } else {
      expect(next?.role).not.toBe('tool')
    }
  })
}

const contexts = async (thread: Thread) => {
  const levels = ['global', 'project', 'task'] as const
  return Promise.all(levels.map((level) => thread.context({ level, system: 'You are careful.' })))
}

describe('context properties', () => {
  it('never shows a tool result without its call, nor a call without its results', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { maxLength: 60, size: 'medium' }), async (operations) => {
        const { thread } = await replay(operations)
        for (const { messages } of await contexts(thread)) assertToolPairs(messages)
      }),
      { numRuns: 200 },
    )
  })

  it('is deterministic: the same log gives a byte-identical context', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { maxLength: 40, size: 'medium' }), async (operations) => {
        const first = await replay(operations)
        const second = await replay(operations)
        const [a, b, again] = [
          await contexts(first.thread),
          await contexts(second.thread),
          await contexts(first.thread),
        ]
        expect(JSON.stringify(b)).toBe(JSON.stringify(a))
        expect(JSON.stringify(again)).toBe(JSON.stringify(a))
      }),
      { numRuns: 100 },
    )
  })

  it('every context message comes from a visible item: the view and the turn request bound what is sent', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { maxLength: 60, size: 'medium' }), async (operations) => {
        const { thread } = await replay(operations)
        const items = await thread.items()
        const request = items.findLast(
          (item) => item.type === 'message' && item.role === 'user' && !item.scope,
        )
        for (const level of ['global', 'project', 'task'] as const) {
          const view = await thread.view(level)
          // The context adds the turn's request when the level's view does not hold it (invariant 4).
          const shown =
            view.length + (request !== undefined && !view.some((item) => item.id === request.id) ? 1 : 0)
          const { messages, stats } = await thread.context({ level })
          expect(stats.itemsVisible).toBe(shown)
          expect(messages.length).toBeLessThanOrEqual(shown * 2)
          expect(stats.contextTokens).toBeGreaterThanOrEqual(0)
          expect(stats.savedTokens).toBe(Math.max(0, stats.totalTokens - stats.contextTokens))
        }
      }),
      { numRuns: 100 },
    )
  })

  it('with skip-level enters and exits: every view follows the rule and exit returns to the enclosing level', async () => {
    let skipped = 0
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { maxLength: 60, size: 'medium' }), async (operations) => {
        const { memory, thread, openedLevels } = await replay(operations)
        const items = await thread.items()
        for (const level of memory.ladder.levels) {
          expect(await thread.view(level)).toEqual(referenceView(items, level, memory.ladder.levels))
        }
        expect(thread.level).toBe(openedLevels.at(-1) ?? 'global')
        expect(thread.scopes.map((scope) => scope.level)).toEqual(openedLevels)
        // Every transition is written at the level its scope was entered from.
        const open: string[] = []
        for (const item of items) {
          if (item.type === 'message' && item.scope !== undefined && item.scope.continuedFrom === undefined) {
            if (memory.ladder.rank(item.level) - memory.ladder.rank(open.at(-1) ?? 'global') > 1) skipped++
            open.push(item.level)
          } else if (item.type === 'transition') {
            expect(item.fromLevel).toBe(open.pop())
            expect(item.level).toBe(open.at(-1) ?? 'global')
          }
        }
      }),
      { numRuns: 150 },
    )
    // The generated histories do take the skip-level path.
    expect(skipped).toBeGreaterThan(20)
  })

  it('with automatic transitions at small limits: contexts stay whole, scopes follow the application, nothing is lost', async () => {
    const compaction: CompactionOptions = {
      autoTransitions: {
        narrowest: { items: 4, toolActions: 2 },
        middle: { items: 6, requests: 3 },
        keepScopes: 2,
      },
    }
    let closedAutomatically = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(longScopeOperation, { minLength: 10, maxLength: 80, size: 'max' }),
        async (operations) => {
          const plain = await replay(operations, 'p')
          const auto = await replay(operations, 'p', compaction)
          for (const { messages } of await contexts(auto.thread)) assertToolPairs(messages)
          // The application's scopes are still open, with their titles, whatever was closed automatically.
          expect(auto.thread.scopes.map((scope) => scope.title)).toEqual(auto.opened)
          expect(auto.thread.level).toBe(plain.thread.level)
          // Every message the application appended is stored once, in order, at the same level and turn.
          const own = (items: Awaited<ReturnType<Thread['items']>>) =>
            items
              .filter((item) => item.type === 'message' && item.scope === undefined)
              .map((item) => item.type === 'message' && [item.role, item.content, item.level, item.turnId])
          expect(own(await auto.thread.items())).toEqual(own(await plain.thread.items()))
          // An automatic transition never comes between a tool call and its result: every call of the
          // scope it closes has its result before it.
          const items = await auto.thread.items()
          items.forEach((item, index) => {
            if (
              item.type !== 'transition' ||
              !['size-limit', 'time-limit', 'token-budget'].includes(item.reason)
            )
              return
            closedAutomatically++
            const closed = items
              .slice(0, index)
              .filter((earlier) => earlier.seq >= item.range.fromSeq && earlier.type === 'message')
            const calls = new Set<string>()
            const results = new Set<string>()
            for (const earlier of closed) {
              if (earlier.type !== 'message') continue
              for (const part of earlier.content) {
                if (part.type === 'tool-call') calls.add(part.toolCallId)
                if (part.type === 'tool-result') results.add(part.toolCallId)
              }
            }
            expect([...calls].filter((id) => !results.has(id))).toEqual([])
          })
        },
      ),
      { numRuns: 150 },
    )
    // The limits are small enough that the random histories do reach them.
    expect(closedAutomatically).toBeGreaterThan(20)
  })
})
