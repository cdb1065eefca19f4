import { invalidOptions, StrataError } from '../errors'
import {
  STORE_SPECIFICATION_VERSION,
  type StoreContentMethods,
  type StoreLeaseMethods,
  type StoreResourceMethods,
  type StoreSlotMethods,
  type StoreSpecificationVersion,
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

/** The methods of the lease capability (contract `v2`, declared with `flags.leases`). */
export const LEASE_METHODS = ['acquireLease', 'renewLease', 'releaseLease', 'readLease'] as const

/** The methods of the resource capability (contract `v2`, declared with `flags.resources`). */
export const RESOURCE_METHODS = [
  'getThreadResource',
  'setThreadResource',
  'touchResourceThread',
  'listResourceThreads',
  'getWorkingMemory',
  'setWorkingMemory',
  'putDocument',
  'getDocument',
  'deleteDocument',
  'listDocuments',
  'deleteResource',
  'putVectors',
  'readVectors',
] as const

/** The methods of the slot capability (contract `v2`, declared with `flags.slots`). */
export const SLOT_METHODS = ['getSlot', 'setSlot'] as const

/** The contract versions core takes, newest first. */
const ACCEPTED_VERSIONS: readonly StoreSpecificationVersion[] = [STORE_SPECIFICATION_VERSION, 'v1']

/**
 * True when the store declares the lease capability (`flags.leases`) and has its methods. A store that
 * declares it without them (a wrapper that copies another store's flags) is taken all the same, as
 * one without the capability: `thread.hold()` names what it lacks.
 */
export function hasLeaseMethods(store: StrataStoreBase): store is StrataStoreBase & StoreLeaseMethods {
  return store.flags.leases === true && LEASE_METHODS.every((method) => typeof store[method] === 'function')
}

/**
 * The store's lease methods, for `thread.hold()`; `STRATA_STORE_CAPABILITY` naming the missing
 * capability when the store has none (a `v1` store, or a `v2` store without `flags.leases`).
 */
export function leaseMethods(store: StrataStoreBase, action: string): StoreLeaseMethods {
  if (hasLeaseMethods(store)) return store
  throw new StrataError({
    code: 'STRATA_STORE_CAPABILITY',
    message: `${action}: the '${store.name}' store (contract ${store.specificationVersion}${store.flags.leases === true ? ', flags.leases without all the lease methods' : ''}) has no lease capability, which holding a thread needs. Use a store of contract '${STORE_SPECIFICATION_VERSION}' that declares flags.leases (inMemoryStore, fileStore and redisStore of this release do), or do not hold the thread: without a hold, two requests on one thread are not kept apart.`,
    details: {
      store: store.name,
      capability: 'leases',
      specificationVersion: store.specificationVersion,
      missing: LEASE_METHODS.filter((method) => typeof store[method] !== 'function'),
    },
  })
}

/** True when the store declares the resource capability (`flags.resources`) and has its methods. */
export function hasResourceMethods(store: StrataStoreBase): store is StrataStoreBase & StoreResourceMethods {
  return (
    store.flags.resources === true && RESOURCE_METHODS.every((method) => typeof store[method] === 'function')
  )
}

/**
 * The store's resource methods, for `memory.resource()` and `memory.thread(id, { resource })`;
 * `STRATA_STORE_CAPABILITY` naming what is missing when the store has none (a `v1` store, or a `v2`
 * store without `flags.resources`).
 */
export function resourceMethods(store: StrataStoreBase, action: string): StoreResourceMethods {
  if (hasResourceMethods(store)) return store
  throw new StrataError({
    code: 'STRATA_STORE_CAPABILITY',
    message: `${action}: the '${store.name}' store (contract ${store.specificationVersion}${store.flags.resources === true ? ', flags.resources without all the resource methods' : ''}) has no resource capability, which resources (threads shared by a user, working memory, documents, cross-thread recall) need. Use a store of contract '${STORE_SPECIFICATION_VERSION}' that declares flags.resources, or open threads without a resource.`,
    details: {
      store: store.name,
      capability: 'resources',
      specificationVersion: store.specificationVersion,
      missing: RESOURCE_METHODS.filter((method) => typeof store[method] !== 'function'),
    },
  })
}

/**
 * True when the store declares the slot capability (`flags.slots`) and has its methods; a store
 * without them keeps core's derived data (the log digest) in the thread's state.
 */
export function hasSlotMethods(store: StrataStoreBase): store is StrataStoreBase & StoreSlotMethods {
  return store.flags.slots === true && SLOT_METHODS.every((method) => typeof store[method] === 'function')
}

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
  if (!ACCEPTED_VERSIONS.includes(candidate.specificationVersion as StoreSpecificationVersion)) {
    invalidOptions(
      `createMemory(): the ${name} store declares specificationVersion ${JSON.stringify(candidate.specificationVersion)}, but this core implements store contract '${STORE_SPECIFICATION_VERSION}' (and still takes 'v1'). Use a store release written for it (declaring specificationVersion: '${STORE_SPECIFICATION_VERSION}').`,
      {
        expected: STORE_SPECIFICATION_VERSION,
        accepted: ACCEPTED_VERSIONS,
        actual: candidate.specificationVersion,
      },
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
  for (const flag of ['leases', 'resources', 'audit', 'slots'] as const) {
    if (flags[flag] !== undefined && typeof flags[flag] !== 'boolean') {
      invalidOptions(`createMemory(): the ${name} store's flags.${flag} must be a boolean when present.`)
    }
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
