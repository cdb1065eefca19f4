import { afterEach, describe, expect, it } from 'vitest'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'
import { recordingTracer } from '../telemetry/testing/recording-tracer'
import { agentTurn, countingStore } from '../testing'
import { SEALING } from '../thread-state/sealed-items'
import type { MemoryRetrieveOutput, MemoryToolError } from './memory-tool-types'
import { memoryTools } from './memory-tools'

const SEALED_KEEP = SEALING.keepConversation
const SEALED_FROM = SEALING.fromItems

afterEach(() => {
  SEALING.keepConversation = SEALED_KEEP
  SEALING.fromItems = SEALED_FROM
})

const TASKS = 30

describe('memory_retrieve on a thread whose open sealed its closed scopes', () => {
  it('reads back the one item an id names, not the log, and answers as a whole open does', async () => {
    const store = inMemoryStore()
    let now = 1_000
    const options = { clock: () => ++now }
    const writer = await createMemory({ ...options, store }).thread('sealed')
    for (let task = 1; task <= TASKS; task++) {
      await writer.append({ role: 'user', content: `request ${task}` })
      await writer.enter('task', { title: `task ${task}` })
      await writer.append(agentTurn(task).slice(1))
      await writer.exit({ outcome: 'complete', summary: `task ${task} done` })
      await writer.append({ role: 'assistant', content: `answer ${task}` })
    }
    const items = await writer.items()
    // An early task's tool result (sealed on open), one part of it, its request (never sealed: it
    // starts a turn), the last answer (in view) and an id no item has.
    const result = items.find((item) => item.type === 'message' && item.role === 'tool')!
    const ids = [result.id, `${result.id}#0`, items[0]!.id, items.at(-1)!.id, 'no-such-id', `${result.id}#7`]

    const whole = memoryTools(await createMemory({ ...options, store }).thread('sealed'))
    const expected = await Promise.all(ids.map((id) => whole.memory_retrieve.execute({ id })))

    SEALING.keepConversation = 2
    SEALING.fromItems = 0
    const counted = countingStore(store)
    const { tracer, spans } = recordingTracer()
    const thread = await createMemory({ ...options, store: counted.store, telemetry: { tracer } }).thread(
      'sealed',
    )
    const sealed = spans.find((span) => span.name === 'strata.thread.open')?.attributes[
      'strata.open.sealed_items'
    ]
    expect(Number(sealed)).toBeGreaterThan(TASKS * 3)
    const tools = memoryTools(thread)
    const opened = { ...counted.reads }
    const answers: (MemoryRetrieveOutput | MemoryToolError)[] = []
    for (const id of ids) answers.push(await tools.memory_retrieve.execute({ id }))
    expect(answers).toEqual(expected)
    expect((answers[0] as MemoryRetrieveOutput).where).toBe('out-of-view')
    expect((answers[3] as MemoryRetrieveOutput).where).toBe('view')
    expect('error' in answers[4]!).toBe(true)
    // The sealed result is read back alone, once for its id and once for its part's: no whole log.
    expect(counted.reads.activeItems - opened.activeItems).toBeLessThanOrEqual(3)
  })
})
