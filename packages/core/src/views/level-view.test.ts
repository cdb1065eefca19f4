import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Item } from '../items'
import { createLevelLadder } from '../levels'
import { levelView } from './level-view'

const ladder = createLevelLadder(['global', 'project', 'task'])

/** A minimal item whose id names its level and position, e.g. `p3`. */
const item = (level: string, seq: number): Item => ({
  id: `${level[0]}${seq}`,
  seq,
  ts: seq,
  level,
  turnId: 'turn_0001',
  type: 'message',
  role: 'assistant',
  content: [{ type: 'text', text: `${level} ${seq}` }],
})
const history = (levels: string) =>
  levels.split(' ').map((code, index) => {
    const level = {
      g: 'global',
      p: 'project',
      t: 'task',
      s: 'session',
      i: 'interaction',
      w: 'world',
      x: 'step',
    }[code]!
    return item(level, index + 1)
  })
const ids = (items: readonly Item[]) => items.map((entry) => entry.id)

describe('levelView: the published fairies filter cases', () => {
  // g = global (the fairies' "fairy" level), p = project, t = task
  const log = history('g g p t t p t t t')

  it('global keeps every global item and nothing else', () => {
    expect(ids(levelView(log, 'global', ladder))).toEqual(['g1', 'g2'])
  })
  it('project keeps project items, skips task items, and stops at the first global item', () => {
    expect(ids(levelView(log, 'project', ladder))).toEqual(['p3', 'p6'])
  })
  it('task keeps only the unbroken run of task items at the end', () => {
    expect(ids(levelView(log, 'task', ladder))).toEqual(['t7', 't8', 't9'])
  })
  it('a broader item at the end empties the narrower views (stop, not skip)', () => {
    const ended = history('p t t g')
    expect(ids(levelView(ended, 'task', ladder))).toEqual([])
    expect(ids(levelView(ended, 'project', ladder))).toEqual([])
    expect(ids(levelView(ended, 'global', ladder))).toEqual(['g4'])
  })
  it('project skips task runs on both sides of project items', () => {
    const interleaved = history('g p t t p t p t t')
    expect(ids(levelView(interleaved, 'project', ladder))).toEqual(['p2', 'p5', 'p7'])
    expect(ids(levelView(interleaved, 'task', ladder))).toEqual(['t8', 't9'])
  })
  it('global items far back are still global: the broadest view never stops', () => {
    const long = history('g p t g p t t p g t')
    expect(ids(levelView(long, 'global', ladder))).toEqual(['g1', 'g4', 'g9'])
  })
  it('an empty log gives empty views', () => {
    expect(levelView([], 'task', ladder)).toEqual([])
  })
})

describe('levelView on other ladders', () => {
  it('two levels: the narrow view is the trailing run, the broad view all broad items', () => {
    const two = createLevelLadder(['global', 'session'])
    const log = history('g s s g s s s')
    expect(ids(levelView(log, 'session', two))).toEqual(['s5', 's6', 's7'])
    expect(ids(levelView(log, 'global', two))).toEqual(['g1', 'g4'])
  })
  it('four levels: middle levels skip narrower items and stop at broader ones', () => {
    const four = createLevelLadder(['world', 'project', 'task', 'step'])
    const log = history('w p t x x t x p t x w p t x t')
    expect(ids(levelView(log, 'world', four))).toEqual(['w1', 'w11'])
    expect(ids(levelView(log, 'project', four))).toEqual(['p12'])
    expect(ids(levelView(log, 'task', four))).toEqual(['t13', 't15'])
    expect(ids(levelView(log, 'step', four))).toEqual([])
    const before = log.slice(0, 10)
    expect(ids(levelView(before, 'task', four))).toEqual(['t9'])
    expect(ids(levelView(before, 'step', four))).toEqual(['s10'])
    expect(ids(levelView(before, 'project', four))).toEqual(['p2', 'p8'])
  })
  it('an item with a level outside the ladder is STRATA_INVALID_LEVEL', () => {
    expect(() => levelView([item('nope', 1)], 'task', ladder)).toThrow(
      expect.objectContaining({ code: 'STRATA_INVALID_LEVEL' }),
    )
  })
})

describe('levelView matches the reference definition (property)', () => {
  /**
   * The rule stated without a scan: an item is visible at `level` when it has that level and no
   * broader item comes after it.
   */
  const reference = (items: readonly Item[], level: string, levels: readonly string[]) => {
    const rank = (name: string) => levels.indexOf(name)
    return items.filter(
      (candidate, index) =>
        candidate.level === level &&
        items.slice(index + 1).every((later) => rank(later.level) >= rank(level)),
    )
  }

  it('on random histories over random ladders of 2 to 6 levels', () => {
    const names = ['l0', 'l1', 'l2', 'l3', 'l4', 'l5']
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 6 })
          .chain((size) =>
            fc.tuple(
              fc.constant(names.slice(0, size)),
              fc.array(fc.integer({ min: 0, max: size - 1 }), { maxLength: 80 }),
              fc.integer({ min: 0, max: size - 1 }),
            ),
          ),
        ([levels, ranks, viewRank]) => {
          const custom = createLevelLadder(levels)
          const items = ranks.map((rank, index) => item(levels[rank]!, index + 1))
          const level = levels[viewRank]!
          expect(ids(levelView(items, level, custom))).toEqual(ids(reference(items, level, levels)))
        },
      ),
      { numRuns: 500 },
    )
  })
})
