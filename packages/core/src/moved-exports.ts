import { invalidOptions } from './errors'

// Runtime names that left the root for a subpath, so that an app importing `createMemory` does not
// carry them. Each stays here as a stub that says where it went: a program that still imports it from
// the root gets a type error at the call (its parameters are `never`) and, untyped, a StrataError
// naming the import to use, instead of a bare "does not provide an export" at load.

function moved(name: string, subpath: string): never {
  invalidOptions(`${name}() moved out of '@strata-memory/core': import { ${name} } from '${subpath}'.`, {
    name,
    subpath,
  })
}

/**
 * @deprecated Moved: `import { memoryTools } from '@strata-memory/core/tools'`. This stub throws
 * `STRATA_INVALID_OPTIONS` saying so.
 */
export function memoryTools(..._moved: never[]): never {
  return moved('memoryTools', '@strata-memory/core/tools')
}

/**
 * @deprecated Moved: `import { scopeTools } from '@strata-memory/core/tools'`. This stub throws
 * `STRATA_INVALID_OPTIONS` saying so.
 */
export function scopeTools(..._moved: never[]): never {
  return moved('scopeTools', '@strata-memory/core/tools')
}

/**
 * @deprecated Moved: `import { promptSummarizer } from '@strata-memory/core/prompt-summarizer'`. This
 * stub throws `STRATA_INVALID_OPTIONS` saying so.
 */
export function promptSummarizer(..._moved: never[]): never {
  return moved('promptSummarizer', '@strata-memory/core/prompt-summarizer')
}
