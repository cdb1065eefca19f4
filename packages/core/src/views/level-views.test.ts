import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Item } from '../items'
import type { LogEntry } from '../items/sealed-item'
import { createLevelLadder } from '../levels'
import { sealedOf } from '../thread-state/sealed-items'
import { isContextMemoryItem } from './context-memory-item'
import { LevelViews, levelView } from './level-view'

const LEVELS = ['global', 'project', 'task'] as const
type Level = (typeof LEVELS)[number]
const ladder = createLevelLadder<Level>([...LEVELS])

let made = 0
/** A message, a fact (a context-memory item, which no view shows) or a scope summary of `level`. */
function entry(level: Level, kind: 'message' | 'fact' | 'summary'): Item<Level> {
  made += 1
  const base = { id: `e${made}`, seq: made, ts: made, level, turnId: `turn_${made}` }
  if (kind === 'fact') return { ...base, type: 'fact', text: `fact ${made}` } as Item<Level>
  if (kind === 'summary')
    return { ...base, type: 'summary', tier: 'scope', text: `summary ${made}` } as Item<Level>
  return { ...base, type: 'message', role: 'user', content: [{ type: 'text', text: `m${made}` }] }
}

/** Whether `later` ends every walk before it reaches `entry`: broader, and not a context-memory item. */
const covers = (later: LogEntry<Level>, entry: LogEntry<Level>) =>
  (later.type === 'sealed' || !isContextMemoryItem(later)) &&
  ladder.rank(later.level) < ladder.rank(entry.level)

/** Whether a broader entry follows each sealed one, as sealing requires. */
function sealsHold(entries: readonly LogEntry<Level>[]): boolean {
  return entries.every(
    (sealed, index) =>
      sealed.type !== 'sealed' || entries.slice(index + 1).some((later) => covers(later, sealed)),
  )
}

/** What changes a thread's log between two views: appends, and what makes the cache start over. */
const operation = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('push' as const),
      level: fc.constantFrom(...LEVELS),
      kind: fc.constantFrom('message' as const, 'message' as const, 'fact' as const, 'summary' as const),
      count: fc.integer({ min: 1, max: 4 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constant('view' as const), level: fc.constantFrom(...LEVELS) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('remove' as const),
      at: fc.nat(),
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('seal' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('copy' as const) }) },
)

describe('LevelViews', () => {
  it('gives what levelView gives after any appends, removals, sealing, copies and level changes', () => {
    fc.assert(
      fc.property(fc.array(operation, { minLength: 1, maxLength: 80 }), (operations) => {
        let entries: LogEntry<Level>[] = []
        const views = new LevelViews<Level>()
        for (const step of operations) {
          if (step.op === 'push') {
            for (let index = 0; index < step.count; index++) entries.push(entry(step.level, step.kind))
          } else if (step.op === 'remove') {
            // As an archive removes: never the broader item that keeps a sealed one out of every view.
            if (entries.length === 0) continue
            const kept = entries.slice()
            kept.splice(step.at % kept.length, step.count)
            if (sealsHold(kept)) entries.splice(step.at % entries.length, step.count)
          } else if (step.op === 'copy') {
            entries = entries.slice()
          } else if (step.op === 'seal') {
            // Sealed as an open seals: an item a broader one follows, replaced by its stub in place.
            if (entries.length === 0) continue
            const index = step.at % entries.length
            const target = entries[index]!
            if (target.type === 'sealed') continue
            const covered = entries.slice(index + 1).some((later) => covers(later, target))
            if (covered) entries[index] = sealedOf(target as Item<Level>)
          } else {
            const got = views.of(entries, step.level, ladder)
            const expected = levelView(entries, step.level, ladder)
            expect(got.length).toBe(expected.length)
            for (const [index, item] of got.entries()) expect(item).toBe(expected[index])
          }
        }
      }),
      { numRuns: 500 },
    )
  })

  it('reads only the new entries while the log only grows', () => {
    const log: LogEntry<Level>[] = [entry('global', 'message')]
    for (let index = 0; index < 1_000; index++)
      log.push(entry(index % 3 === 0 ? 'project' : 'task', 'message'))
    let reads = 0
    const entries = new Proxy(log, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1
        return Reflect.get(target, key, receiver)
      },
    })
    const views = new LevelViews<Level>()
    expect(views.of(entries, 'project', ladder)).toHaveLength(334)
    expect(reads).toBeGreaterThan(1_000)
    reads = 0
    entries.push(entry('project', 'message'), entry('task', 'message'))
    const view = views.of(entries, 'project', ladder)
    expect(view).toHaveLength(335)
    expect(view).toEqual(levelView(log, 'project', ladder))
    // The last entry seen, where it was, and the two new ones.
    expect(reads).toBeLessThanOrEqual(4)
  })
})
