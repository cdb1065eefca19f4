import { describe, expect, it } from 'vitest'
import type { Item } from '../items'
import { isSealed } from '../items/sealed-item'
import { ActiveEntries } from './active-entries'

const ranks: Record<string, number> = { global: 0, project: 1, task: 2 }

/** Message `seq` at `level`, in a turn that an earlier message started (so it can be sealed). */
function item(seq: number, level: string): Item {
  return {
    seq,
    id: `i${seq}`,
    ts: 1,
    level,
    turnId: 'turn_0001',
    type: 'message',
    role: 'assistant',
    content: [{ type: 'text', text: `answer ${seq}` }],
  }
}

/** Streams tasks of three items, each followed by a project item, into entries sealing from `fromItems`. */
function streamed(fromItems: number, told: number | undefined, items: number) {
  const entries = new ActiveEntries<string>()
  entries.beginSealing({
    rank: (level) => ranks[level],
    keepConversation: 0,
    fromItems,
    read: async () => [],
  })
  if (told !== undefined) entries.expectCount(told)
  /** How many entries were sealed when each item had been taken. */
  const sealedAfter: number[] = []
  for (let seq = 1; seq <= items; seq++) {
    entries.push(item(seq, seq % 4 === 0 ? 'project' : 'task'), false)
    sealedAfter.push(entries.all.filter(isSealed).length)
  }
  return sealedAfter
}

describe('ActiveEntries, an open streaming the log', () => {
  it('holds the first fromItems items whole unless the store says the log is long; then seals from the first page', async () => {
    const untold = streamed(40, undefined, 60)
    // Nothing sealed before the 40th item; at the 40th, what a broader item covers (three a task).
    expect(untold.slice(0, 39).every((count) => count === 0)).toBe(true)
    expect(untold[39]).toBe(30)
    const told = streamed(40, 1_000, 60)
    // Each task's items as soon as its project item follows.
    expect(told[3]).toBe(3)
    expect(told[7]).toBe(6)
    // The same items end sealed either way.
    expect(told.at(-1)).toBe(untold.at(-1))
    // A count below fromItems changes nothing.
    expect(streamed(40, 39, 60)).toEqual(untold)
  })
})
