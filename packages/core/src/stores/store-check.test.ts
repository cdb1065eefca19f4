import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { createMemory } from '../memory'
import { inMemoryStore } from './in-memory-store'
import type { StrataStoreBase } from './store'

/** The in-memory store without its content methods: the minimum a store must have. */
function storeWithoutContent(): StrataStoreBase {
  const { putContent: _put, getContent: _get, queryContent: _query, ...rest } = inMemoryStore()
  return rest
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
    expect((error as Error).message).toContain("store contract 'v1'")
    expect((error as StrataError).details).toEqual({ expected: 'v1', actual: undefined })
  })

  it('refuses a store written for another contract version', () => {
    const error = caught(() =>
      createMemory({ store: { ...inMemoryStore(), specificationVersion: 'v2' } as never }),
    )
    expect(StrataError.isInstance(error, 'STRATA_INVALID_OPTIONS')).toBe(true)
    expect((error as Error).message).toMatch(/declares specificationVersion "v2".*'v1'/)
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
