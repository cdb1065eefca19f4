import { StrataError } from '../errors'

/** The default ladder, broad to narrow. */
export const DEFAULT_LEVELS = ['global', 'project', 'task'] as const
export type DefaultLevel = (typeof DEFAULT_LEVELS)[number]

const LEVEL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/
const MIN_LEVELS = 2
const MAX_LEVELS = 6

/**
 * An ordered set of memory levels, broad to narrow (index 0 is the broadest).
 * `L` is the union of the level names, so a custom ladder's names are checked by the compiler.
 */
export interface LevelLadder<L extends string = string> {
  /** The level names, broad to narrow. */
  readonly levels: readonly L[]
  /** The broadest level (index 0). */
  readonly broadest: L
  /** The narrowest level (last index). */
  readonly narrowest: L
  /** The rank of a level: 0 for the broadest. Throws `STRATA_INVALID_LEVEL` for an unknown name. */
  rank(level: string): number
  /** True when `level` is one of the ladder's names. */
  has(level: unknown): level is L
  /** Returns `level` typed, or throws `STRATA_INVALID_LEVEL` naming the valid levels. */
  assert(level: unknown): L
  /** The next broader level, or undefined for the broadest. */
  parent(level: L): L | undefined
  /** The next narrower level, or undefined for the narrowest. */
  child(level: L): L | undefined
}

/**
 * Validates a ladder of 2 to 6 distinct level names and returns its helpers.
 *
 * @example
 * const ladder = createLevelLadder(['global', 'session', 'interaction'])
 * ladder.rank('session') // 1
 */
export function createLevelLadder<const L extends string>(levels: readonly L[]): LevelLadder<L> {
  if (!Array.isArray(levels) || levels.length < MIN_LEVELS || levels.length > MAX_LEVELS) {
    throw new StrataError({
      code: 'STRATA_INVALID_LEVEL',
      message: `A level ladder needs ${MIN_LEVELS} to ${MAX_LEVELS} level names, broad to narrow (got ${describe(levels)}). Example: ['global', 'project', 'task'].`,
      details: { levels },
    })
  }
  const ranks = new Map<string, number>()
  levels.forEach((level, index) => {
    if (typeof level !== 'string' || !LEVEL_NAME.test(level)) {
      throw new StrataError({
        code: 'STRATA_INVALID_LEVEL',
        message: `Level name ${JSON.stringify(level)} is invalid: use 1-64 characters of letters, digits, '_' or '-', starting with a letter.`,
        details: { levels, level },
      })
    }
    if (ranks.has(level)) {
      throw new StrataError({
        code: 'STRATA_INVALID_LEVEL',
        message: `Level name '${level}' appears twice in the ladder; every level must be distinct.`,
        details: { levels, level },
      })
    }
    ranks.set(level, index)
  })
  const frozen = Object.freeze([...levels])
  const has = (level: unknown): level is L => typeof level === 'string' && ranks.has(level)
  const assert = (level: unknown): L => {
    if (has(level)) return level
    throw new StrataError({
      code: 'STRATA_INVALID_LEVEL',
      message: `Unknown level ${JSON.stringify(level)}: this memory's levels are ${frozen.map((name) => `'${name}'`).join(', ')}.`,
      details: { level, levels: frozen },
    })
  }
  return {
    levels: frozen,
    broadest: frozen[0]!,
    narrowest: frozen[frozen.length - 1]!,
    rank: (level) => ranks.get(assert(level))!,
    has,
    assert,
    parent: (level) => frozen[ranks.get(assert(level))! - 1],
    child: (level) => frozen[ranks.get(assert(level))! + 1],
  }
}

function describe(value: unknown): string {
  if (!Array.isArray(value)) return typeof value
  return `${value.length} level${value.length === 1 ? '' : 's'}`
}
