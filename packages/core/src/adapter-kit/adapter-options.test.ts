import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { createMemory } from '../memory'
import {
  ADAPTER_OPTION_KEYS,
  checkAdapterOptions,
  checkMemoryArgument,
  checkOneOf,
  checkOptionKeys,
  DIVERGENCE_HANDLINGS,
  HISTORY_MODES,
} from './adapter-options'

/** The error `run` throws, which must be a StrataError. */
function refusal(run: () => void): StrataError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(StrataError)
    return error as StrataError
  }
  throw new Error('expected a refusal')
}

describe('checkAdapterOptions', () => {
  const memory = createMemory()

  it('gives the options every adapter shares back when they are right, with their defaults', () => {
    const options = {
      memory,
      level: 'task',
      system: 'Be brief.',
      history: 'full',
      onDivergence: 'reject',
      resource: 'user-42',
    } as const
    expect(checkAdapterOptions('strataMiddleware()', options, { history: 'auto' })).toEqual(options)
    expect(checkAdapterOptions('new StrataMemory()', { memory }, { history: 'new' })).toEqual({
      memory,
      history: 'new',
      onDivergence: 'rewind',
    })
  })

  it('refuses each bad option with a typed error that names the caller, the option and the value', () => {
    const cases = [
      [undefined, 'STRATA_INVALID_OPTIONS', 'new StrataMemory() needs { memory }'],
      [{ memory: undefined }, 'STRATA_INVALID_OPTIONS', 'new StrataMemory() needs { memory }'],
      [{ memory: { thread: () => undefined } }, 'STRATA_INVALID_OPTIONS', 'needs { memory }'],
      [{ memory, system: 42 }, 'STRATA_INVALID_OPTIONS', 'new StrataMemory(): system must be a string'],
      [
        { memory, history: 'all' },
        'STRATA_INVALID_OPTIONS',
        `new StrataMemory(): history must be 'auto', 'full' or 'new' (got "all").`,
      ],
      [
        { memory, onDivergence: 'fork' },
        'STRATA_INVALID_OPTIONS',
        `new StrataMemory(): onDivergence must be 'rewind' or 'reject' (got "fork").`,
      ],
      [{ memory, level: 'sprint' }, 'STRATA_INVALID_LEVEL', 'sprint'],
      [{ memory, resource: 7 }, 'STRATA_INVALID_OPTIONS', 'resource must be a resource id string'],
      [{ memory, resource: 'user 42' }, 'STRATA_INVALID_THREAD_ID', 'Invalid resource id "user 42"'],
    ] as const
    for (const [options, code, message] of cases) {
      const error = refusal(() =>
        checkAdapterOptions('new StrataMemory()', options as never, { history: 'auto' }),
      )
      expect(error.code, message).toBe(code)
      expect(error.message).toContain(message)
    }
    expect(
      refusal(() => checkAdapterOptions('x()', { memory, history: 'all' as never }, { history: 'new' }))
        .details,
    ).toEqual({
      history: 'all',
    })
  })

  it('lists the modes and handlings core knows', () => {
    expect(HISTORY_MODES).toEqual(['auto', 'full', 'new'])
    expect(DIVERGENCE_HANDLINGS).toEqual(['rewind', 'reject'])
    const error = refusal(() => checkOneOf('StrataMemory', 'state', 'tiny', ['full', 'compact']))
    expect(error.message).toBe(`StrataMemory: state must be 'full' or 'compact' (got "tiny").`)
  })
})

describe('checkOptionKeys', () => {
  const known = { ...ADAPTER_OPTION_KEYS, threadId: true } as const

  it('takes the keys it knows, and anything that is not an object (its own check judges that)', () => {
    expect(() => checkOptionKeys('x()', { memory: 1, threadId: 'a', level: undefined }, known)).not.toThrow()
    expect(() => checkOptionKeys('x()', undefined, known)).not.toThrow()
    expect(() => checkOptionKeys('x()', 'memory', known)).not.toThrow()
  })

  it('refuses an unknown key, naming the caller, the key, the one it looks like and the known ones', () => {
    const typo = refusal(() => checkOptionKeys('strataMiddleware()', { memory: 1, threadID: 'a' }, known))
    expect(typo.code).toBe('STRATA_INVALID_OPTIONS')
    expect(typo.message).toBe(
      "strataMiddleware(): unknown option 'threadID' (did you mean 'threadId'?). It takes memory, resource, level, system, history, onDivergence, threadId.",
    )
    expect(typo.details).toEqual({ option: 'threadID', suggestion: 'threadId' })
    const unknown = refusal(() => checkOptionKeys('x()', { store: 1 }, known))
    expect(unknown.message).toBe(
      "x(): unknown option 'store'. It takes memory, resource, level, system, history, onDivergence, threadId.",
    )
    expect(unknown.details).toEqual({ option: 'store' })
  })
})

describe('checkMemoryArgument', () => {
  const messageOf = (value: unknown) =>
    refusal(() => checkMemoryArgument('strataTools(memory)', value)).message

  it('takes the memory; names { memory } for what it is; anything else needs the memory', () => {
    const memory = createMemory()
    expect(() => checkMemoryArgument('strataTools(memory)', memory)).not.toThrow()
    expect(messageOf({ memory })).toBe(
      'strataTools(memory) takes the memory itself as its first argument, not { memory }.',
    )
    for (const value of [undefined, null, {}, 'memory', { memory: {} }])
      expect(messageOf(value)).toBe('strataTools(memory) needs the memory from createMemory() first.')
  })
})
