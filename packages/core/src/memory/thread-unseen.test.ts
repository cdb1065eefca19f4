import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { type ComparableMessage, unseenMessages } from '../history'
import type { MessageInput, MessagePart } from '../items'
import { inMemoryStore } from '../stores'
import { recordingTracer } from '../telemetry/testing/recording-tracer'
import { SEALING } from '../thread-state/sealed-items'
import { createMemory } from './create-memory'
import type { Thread } from './thread'
import type { UnseenOptions } from './thread-types'

/*
 * `thread.unseen` tells the messages a thread has not stored from its stored tail, as `appendUnseen`
 * does: on any stored conversation (whole, or opened with closed scopes sealed) and any incoming list,
 * it finds what `unseenMessages` finds on every active item.
 */

type Step = 'user' | 'tool' | 'answer' | 'enter' | 'exit'

const text = (value: string): MessagePart[] => [{ type: 'text', text: value }]

/** Stores one step; the texts repeat (`pick`) so re-sent and new messages can read the same. */
async function store(thread: Thread, step: Step, pick: number, call: number): Promise<void> {
  if (step === 'enter') await thread.enter('task', { title: `task ${call}` }).catch(() => undefined)
  else if (step === 'exit') await thread.exit({ outcome: 'complete', summary: 'done' }).catch(() => undefined)
  else if (step === 'tool') {
    await thread.append([
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: `c${call}`, toolName: 'look', input: {} }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: `c${call}`, toolName: 'look', output: pick }],
      },
    ])
  } else
    await thread.append({ role: step === 'user' ? 'user' : 'assistant', content: text(`${step} ${pick}`) })
}

/** An incoming list built from the stored conversation: a suffix, maybe text only or with one message changed, then new messages. */
const incomingShape = fc.record({
  from: fc.nat(),
  textOnly: fc.boolean(),
  changed: fc.option(fc.nat(), { nil: undefined }),
  added: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), pick: fc.nat({ max: 3 }) }), {
    maxLength: 3,
  }),
  history: fc.constantFrom('auto' as const, 'full' as const, 'new' as const),
  window: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
})

type IncomingShape = typeof incomingShape extends fc.Arbitrary<infer Shape> ? Shape : never

afterEach(() => {
  SEALING.keepConversation = 320
  SEALING.fromItems = 20_000
})

describe('thread.unseen (property)', () => {
  it('finds what unseenMessages finds on the active items, sealed or whole', async () => {
    const seen = { sealed: 0, matched: 0, unseen: 0, notAligned: 0 }
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.constantFrom<Step>(
              'user',
              'user',
              'tool',
              'answer',
              'answer',
              'enter',
              'enter',
              'exit',
              'exit',
            ),
            fc.nat(3),
          ),
          { minLength: 5, maxLength: 40 },
        ),
        fc.array(incomingShape, { minLength: 1, maxLength: 4 }),
        fc.option(fc.nat(4), { nil: undefined }),
        async (steps, shapes, keep) => {
          const backing = inMemoryStore()
          const writer = await createMemory({ store: backing }).thread('t')
          for (const [index, [step, pick]] of steps.entries()) await store(writer, step, pick, index)
          const conversation: ComparableMessage[] = (await writer.items()).flatMap((item) =>
            item.type === 'message' && item.scope === undefined && item.role !== 'system'
              ? [{ role: item.role, content: item.content }]
              : [],
          )
          // Opened again: sealing what it may when `keep` is set, whole otherwise.
          SEALING.keepConversation = keep ?? Number.MAX_SAFE_INTEGER
          SEALING.fromItems = 0
          const { tracer, spans } = recordingTracer()
          const thread = await createMemory({ store: backing, telemetry: { tracer } }).thread('t')
          const opened = spans.find((span) => span.name === 'strata.thread.open')
          if (Number(opened?.attributes['strata.open.sealed_items']) > 0) seen.sealed++
          SEALING.keepConversation = 320
          SEALING.fromItems = 20_000
          for (const shape of shapes) {
            const incoming = incomingOf(conversation, shape)
            const options: UnseenOptions<ComparableMessage> = {
              history: shape.history,
              ...(shape.window === undefined ? {} : { window: shape.window }),
            }
            const told = await thread.unseen(incoming, options)
            expect(told).toEqual(unseenMessages(await thread.items(), incoming, options))
            if (told.matched > 0) seen.matched++
            if (told.unseen.length > 0) seen.unseen++
            if (!told.aligned) seen.notAligned++
          }
        },
      ),
      { numRuns: 150 },
    )
    // The lists re-send, add and diverge, and many opens seal something.
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(15)
  }, 120_000)
})

function incomingOf(
  conversation: readonly ComparableMessage[],
  shape: IncomingShape,
): (ComparableMessage & MessageInput)[] {
  let list = conversation.slice(conversation.length === 0 ? 0 : shape.from % (conversation.length + 1))
  if (shape.textOnly) list = list.filter((message) => message.content.every((part) => part.type === 'text'))
  if (shape.changed !== undefined && list.length > 0) {
    const at = shape.changed % list.length
    list = list.map((message, index) => (index === at ? edited(message) : message))
  }
  const added = shape.added.map(({ role, pick }) => ({
    role,
    content: text(`${role === 'user' ? 'user' : 'answer'} ${pick}`),
  }))
  return [...list, ...added] as (ComparableMessage & MessageInput)[]
}

/** The message with other content, valid still (a tool message's results get another output). */
function edited(message: ComparableMessage): ComparableMessage {
  if (message.role !== 'tool') return { ...message, content: text('edited') }
  return {
    ...message,
    content: message.content.map((part) => ({ ...part, output: 'edited' }) as MessagePart),
  }
}
