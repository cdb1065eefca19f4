import { describe, expect, expectTypeOf, it } from 'vitest'
import { StrataError } from '../errors'
import { createLevelLadder, DEFAULT_LEVELS } from './level-ladder'

const invalidLevel = expect.objectContaining({ code: 'STRATA_INVALID_LEVEL' })

describe('createLevelLadder', () => {
  it('orders levels broad to narrow', () => {
    const ladder = createLevelLadder(DEFAULT_LEVELS)
    expect(ladder.broadest).toBe('global')
    expect(ladder.narrowest).toBe('task')
    expect(ladder.rank('project')).toBe(1)
    expect(ladder.parent('task')).toBe('project')
    expect(ladder.parent('global')).toBeUndefined()
    expect(ladder.child('global')).toBe('project')
    expect(ladder.child('task')).toBeUndefined()
  })

  it('accepts custom names and keeps them in the type', () => {
    const ladder = createLevelLadder(['global', 'session', 'interaction'])
    expectTypeOf(ladder.narrowest).toEqualTypeOf<'global' | 'session' | 'interaction'>()
    expect(ladder.levels).toEqual(['global', 'session', 'interaction'])
  })

  it.each([
    ['one level', ['only']],
    ['seven levels', ['a', 'b', 'c', 'd', 'e', 'f', 'g']],
    ['a duplicate', ['global', 'task', 'global']],
    ['an empty name', ['global', '']],
    ['a name with a space', ['global', 'my task']],
    ['not an array', 'global,task'],
  ])('rejects a ladder with %s', (_, levels) => {
    expect(() => createLevelLadder(levels as string[])).toThrow(invalidLevel)
  })

  it('rejects unknown levels with a message naming the valid ones', () => {
    const ladder = createLevelLadder(DEFAULT_LEVELS)
    expect(() => ladder.assert('tsak')).toThrow(invalidLevel)
    try {
      ladder.rank('tsak')
    } catch (error) {
      expect(StrataError.isInstance(error, 'STRATA_INVALID_LEVEL')).toBe(true)
      expect((error as Error).message).toContain("'global', 'project', 'task'")
    }
  })
})
