import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { createMemory } from '../memory'
import { inMemoryStore } from './in-memory-store'
import type { StrataStore, StrataStoreBase } from './store'
import { hasSlotMethods } from './store-check'

/** The in-memory store without its content methods: the minimum a store must have. */
function storeWithoutContent(): StrataStoreBase {
  const { putContent: _put, getContent: _get, queryContent: _query, ...rest } = inMemoryStore()
  return rest
}

/** The in-memory store as a v1 store: no lease methods, no `flags.leases`. */
function v1Store(): StrataStore {
  const {
    acquireLease: _acquire,
    renewLease: _renew,
    releaseLease: _release,
    readLease: _read,
    specificationVersion: _version,
    flags,
    ...rest
  } = inMemoryStore()
  return {
    ...rest,
    specificationVersion: 'v1',
    flags: { persistent: flags.persistent, shared: flags.shared },
  }
}

function caught(call: () => unknown): unknown {
  try {
    call()
  } catch (error) {
    return error
  }
  return undefined
}

describe('createMemory checks the store it is given', () => {
  it('refuses a store without specificationVersion, naming the version core expects', () => {
    const { specificationVersion: _version, ...unversioned } = inMemoryStore()
    const error = caught(() => createMemory({ store: unversioned as never }))
    expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')).toBe(true)
    expect((error as Error).message).toContain("store contract 'v2' (and still takes 'v1')")
    expect((error as StrataError).details).toEqual({
      expected: 'v2',
      accepted: ['v2', 'v1'],
      actual: undefined,
    })
  })

  it('refuses a store written for another contract version', () => {
    const error = caught(() =>
      createMemory({ store: { ...inMemoryStore(), specificationVersion: 'v3' } as never }),
    )
    expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')).toBe(true)
    expect((error as Error).message).toMatch(/declares specificationVersion "v3".*'v2'/)
  })

  it('takes a v1 store (no lease) for everything but thread.hold(), which names the missing capability', async () => {
    const store = v1Store()
    const memory = createMemory({ store })
    const thread = await memory.thread('old-store')
    await thread.append({ role: 'user', content: 'Hello' })
    await thread.append({ role: 'assistant', content: 'Hi' })
    expect((await store.head('old-store')).lastSeq).toBe(2)
    const error = await thread.hold().then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(StrataError.isInstance(error, 'STRATA_STORE_CAPABILITY')).toBe(true)
    expect((error as StrataError<'STRATA_STORE_CAPABILITY'>).details).toMatchObject({
      store: 'memory',
      capability: 'leases',
      specificationVersion: 'v1',
    })
    expect((error as Error).message).toContain("store of contract 'v2' that declares flags.leases")
    expect((await store.head('old-store')).lastSeq).toBe(2)
  })

  it('takes a store declaring flags.leases without the lease methods; hold() names what it lacks', async () => {
    const { acquireLease: _acquire, ...lacking } = inMemoryStore()
    const thread = await createMemory({ store: lacking }).thread('wrapped')
    await thread.append({ role: 'user', content: 'Hello' })
    const error = await thread.hold().then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(StrataError.isInstance(error, 'STRATA_STORE_CAPABILITY')).toBe(true)
    expect((error as StrataError).details).toMatchObject({ capability: 'leases', missing: ['acquireLease'] })
    expect((error as Error).message).toContain('flags.leases without all the lease methods')
  })

  it('refuses a store that lacks a required method or its flags', () => {
    const { head: _head, ...headless } = inMemoryStore()
    const missing = caught(() => createMemory({ store: headless as never }))
    expect(StrataError.isInstance(missing, 'STRATA_INVALID_OPTIONS')).toBe(true)
    expect((missing as StrataError).details).toEqual({ missing: ['head'] })
    const { flags: _flags, ...flagless } = inMemoryStore()
    expect(
      StrataError.isInstance(
        caught(() => createMemory({ store: flagless as never })),
        'STRATA_INVALID_OPTIONS',
      ),
    ).toBe(true)
  })

  it('refuses a store whose flags.leases, resources, audit or slots is declared but not a boolean', () => {
    for (const flag of ['leases', 'resources', 'audit', 'slots']) {
      const store = inMemoryStore()
      const error = caught(() =>
        createMemory({ store: { ...store, flags: { ...store.flags, [flag]: 'yes' } } }),
      )
      expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')).toBe(true)
      expect((error as Error).message).toContain(`flags.${flag} must be a boolean when present`)
    }
    expect(inMemoryStore().flags).toMatchObject({ leases: true, resources: true, audit: true, slots: true })
  })

  it('takes a store that declares flags.slots without the slot methods as one without slots: the digest goes in the state', async () => {
    const { getSlot: _get, setSlot: _set, ...store } = inMemoryStore()
    expect(hasSlotMethods(store)).toBe(false)
    expect(hasSlotMethods(inMemoryStore())).toBe(true)
    expect(hasSlotMethods({ ...inMemoryStore(), flags: { persistent: false, shared: false } })).toBe(false)
    const thread = await createMemory({ store }).thread('no-slots')
    for (let turn = 1; turn <= 6; turn++) await thread.append({ role: 'user', content: `message ${turn}` })
    await thread.rewind({ afterSeq: 2 })
    await thread.settled()
    expect((await store.head('no-slots')).archivedCount).toBeGreaterThan(0)
    expect((await store.getState('no-slots'))?.logDigest).toMatchObject({ version: 1 })
  })

  it('refuses a store without content methods while the content channel is on', () => {
    const error = caught(() => createMemory({ store: storeWithoutContent() as never }))
    expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')).toBe(true)
    expect((error as Error).message).toContain('Pass content: false')
  })

  it('runs a thread on a store without content methods when content is off', async () => {
    const store = storeWithoutContent()
    const memory = createMemory({ store, content: false })
    const thread = await memory.thread('plain')
    await thread.append({ role: 'user', content: 'x'.repeat(10_000) })
    await thread.append({ role: 'assistant', content: 'Done' })
    const { messages } = await thread.context()
    expect(messages).toHaveLength(2)
    expect((await store.head('plain')).lastSeq).toBe(2)
  })

  it('gives a typed error only when content is actually needed (memory_store), and writes nothing', async () => {
    const store = storeWithoutContent()
    const memory = createMemory({ store, content: false })
    const thread = await memory.thread('tools')
    const error = await thread.content.put({ content: 'a note' }).then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')).toBe(true)
    expect((error as Error).message).toMatch(/^memory_store: the 'memory' store has no content methods/)
    expect(await store.listThreads()).toEqual([])
  })
})
