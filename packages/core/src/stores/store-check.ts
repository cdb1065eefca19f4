import { invalidOptions } from '../errors'
import {
  STORE_SPECIFICATION_VERSION,
  type StoreContentMethods,
  type StrataStore,
  type StrataStoreBase,
} from './store'

/*
 * What core checks of a store it is given: the contract version, the required methods and flags, and
 * (only where content is needed) the content methods.
 */

/** The methods every store has. */
export const REQUIRED_METHODS = [
  'append',
  'read',
  'head',
  'archive',
  'readArchive',
  'getState',
  'setState',
  'listThreads',
  'deleteThread',
] as const

/** The methods of the content capability. */
export const CONTENT_METHODS = ['putContent', 'getContent', 'queryContent'] as const

/** True when the store implements every content method (the optional content capability). */
export function hasContentMethods(store: StrataStoreBase): store is StrataStore {
  return CONTENT_METHODS.every((method) => typeof store[method] === 'function')
}

/**
 * Checks a store given to `createMemory`: `STRATA_INVALID_OPTIONS` unless it declares the contract
 * version core implements, has every required method and declares its flags, and (when `content` is
 * true, the content channel being on) has the content methods.
 */
export function checkStore(
  store: unknown,
  { content }: { content: boolean },
): asserts store is StrataStoreBase {
  if (typeof store !== 'object' || store === null) {
    invalidOptions(
      'createMemory(): store must be a store object such as inMemoryStore() or fileStore({ dir }).',
    )
  }
  const candidate = store as Partial<Record<string, unknown>>
  const name = typeof candidate.name === 'string' ? `'${candidate.name}'` : 'given'
  if (candidate.specificationVersion !== STORE_SPECIFICATION_VERSION) {
    invalidOptions(
      `createMemory(): the ${name} store declares specificationVersion ${JSON.stringify(candidate.specificationVersion)}, but this core implements store contract '${STORE_SPECIFICATION_VERSION}'. Use a store release written for it (declaring specificationVersion: '${STORE_SPECIFICATION_VERSION}').`,
      { expected: STORE_SPECIFICATION_VERSION, actual: candidate.specificationVersion },
    )
  }
  const missing = REQUIRED_METHODS.filter((method) => typeof candidate[method] !== 'function')
  if (missing.length > 0) {
    invalidOptions(
      `createMemory(): the ${name} store lacks ${missing.join(', ')}; a store implements each method of StrataStoreBase.`,
      {
        missing,
      },
    )
  }
  const flags = candidate.flags as Partial<Record<string, unknown>> | undefined
  if (typeof flags?.persistent !== 'boolean' || typeof flags.shared !== 'boolean') {
    invalidOptions(
      `createMemory(): the ${name} store must declare flags { persistent: boolean, shared: boolean }.`,
    )
  }
  if (content && !hasContentMethods(store as StrataStoreBase)) {
    invalidOptions(
      `createMemory(): the ${name} store has no content methods (putContent, getContent, queryContent), which the content channel needs. Pass content: false, or use a store that has them.`,
      { missing: CONTENT_METHODS.filter((method) => typeof candidate[method] !== 'function') },
    )
  }
}

/**
 * The store's content methods, for an action that needs them (`memory_store`, an offload, …);
 * `STRATA_INVALID_OPTIONS` naming the action when the store has none.
 */
export function contentMethods(store: StrataStoreBase, action: string): StoreContentMethods {
  if (hasContentMethods(store)) return store
  const { name } = store as StrataStoreBase
  return invalidOptions(
    `${action}: the '${name}' store has no content methods (putContent, getContent, queryContent), so this memory cannot keep content. Use a store that has them.`,
    { store: name, action },
  )
}
