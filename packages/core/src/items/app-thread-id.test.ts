import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { openAppThread, readAppThreadId } from '../memory/app-thread'
import { createMemory } from '../memory/create-memory'
import { inMemoryStore } from '../stores'
import {
  appThreadIdOf,
  isHashedThreadId,
  MAPPED_THREAD_ID_PREFIX,
  quotedThreadId,
  toStoreThreadId,
} from './app-thread-id'
import { isValidThreadId } from './thread-id'

const APP_IDS = ['user:42', 'user:42/chat:7', 'a b', 'Ünïcode/名前', `${'x'.repeat(299)}/`]

describe('the app thread id mapping', () => {
  it('an id valid today maps to itself, so no existing thread moves', async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/), async (id) => {
        fc.pre(!id.startsWith(MAPPED_THREAD_ID_PREFIX))
        expect(await toStoreThreadId(id)).toBe(id)
        expect(appThreadIdOf(id)).toBe(id)
      }),
    )
  })

  it("an id that starts with the mapped prefix is mapped too: it never takes another app id's thread", async () => {
    for (const [app, lookalike] of [
      ['.hidden', '_..hidden'],
      ['café', '_.caf_C3_A9'],
      ['user:42/chat 7', '_.user_3A42_2Fchat_207'],
    ] as const) {
      expect(await toStoreThreadId(app)).toBe(lookalike)
      const mapped = await toStoreThreadId(lookalike)
      expect(mapped).not.toBe(lookalike)
      expect(isValidThreadId(mapped)).toBe(true)
      expect(appThreadIdOf(mapped)).toBe(lookalike)
    }
    // Distinct ids stay distinct, whatever they look like (the prefix and escapes drawn often).
    const ids = fc.oneof(
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
      fc.stringMatching(/^(_\.)?[A-Za-z0-9_.:/ -]{1,30}$/),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map((id) => `_.${id}`),
    )
    await fc.assert(
      fc.asyncProperty(ids, ids, async (a, b) => {
        const [mappedA, mappedB] = await Promise.all([toStoreThreadId(a), toStoreThreadId(b)])
        if (a !== b) expect(mappedA).not.toBe(mappedB)
        if (!isHashedThreadId(mappedA)) expect(appThreadIdOf(mappedA)).toBe(a)
      }),
      {
        numRuns: 500,
        examples: [
          ['_..', '.'],
          ['_..hidden', '.hidden'],
        ],
      },
    )
  })

  it('any other id maps to a valid id that reads back exactly, at any length', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 400 }), async (id) => {
        fc.pre(!isValidThreadId(id))
        const mapped = await toStoreThreadId(id)
        expect(isValidThreadId(mapped)).toBe(true)
        expect(mapped.startsWith(MAPPED_THREAD_ID_PREFIX)).toBe(true)
        if (isHashedThreadId(mapped)) expect(appThreadIdOf(mapped)).toBeUndefined()
        else expect(appThreadIdOf(mapped)).toBe(id)
      }),
    )
  })

  it('two different ids never map to the same one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 300 }),
        fc.string({ minLength: 1, maxLength: 300 }),
        async (a, b) => {
          fc.pre(a !== b && !a.startsWith(MAPPED_THREAD_ID_PREFIX) && !b.startsWith(MAPPED_THREAD_ID_PREFIX))
          fc.pre(!/[\uD800-\uDFFF]/.test(a + b))
          expect(await toStoreThreadId(a)).not.toBe(await toStoreThreadId(b))
        },
      ),
    )
  })

  it('the ids apps use: readable when short, hashed when long, each opened and read back through the store', async () => {
    expect(await toStoreThreadId('user:42')).toBe('_.user_3A42')
    expect(await toStoreThreadId('user:42/chat:7')).toBe('_.user_3A42_2Fchat_3A7')
    expect(await toStoreThreadId('a b')).toBe('_.a_20b')
    const store = inMemoryStore()
    const memory = createMemory({ store })
    for (const id of APP_IDS) {
      const thread = await openAppThread(memory, id)
      await thread.append({ role: 'user', content: `Hello from ${id}` })
      expect(await readAppThreadId(store, thread.id)).toBe(id)
      expect((await store.getState(thread.id))?.appThreadId).toBe(id)
    }
    const long = await toStoreThreadId(APP_IDS[4]!)
    expect(isHashedThreadId(long)).toBe(true)
    expect(long.length).toBeLessThanOrEqual(128)
  })

  it('binds an app thread to its resource when asked, and refuses another resource later', async () => {
    const memory = createMemory({ store: inMemoryStore() })
    const thread = await openAppThread(memory, 'user:42/chat:7', { resource: 'user-42' })
    expect(thread.resource?.id).toBe('user-42')
    await thread.append({ role: 'user', content: 'I play the cello' })
    const hits = await memory.resource('user-42').query('cello')
    expect(hits).toMatchObject([{ threadId: thread.id }])
    await expect(openAppThread(memory, 'user:42/chat:7', { resource: 'user-43' })).rejects.toMatchObject({
      code: 'STRATA_INVALID_OPTIONS',
    })
  })

  it('an id that cannot be mapped is refused with STRATA_INVALID_THREAD_ID, nothing stored', async () => {
    for (const bad of ['', '\uD800', 42 as unknown as string]) {
      await expect(toStoreThreadId(bad)).rejects.toMatchObject({
        code: 'STRATA_INVALID_THREAD_ID',
        details: { reason: 'unmappable' },
      })
    }
  })
})

describe('quotedThreadId', () => {
  it("names an escaped id by the app's own id, the store's beside it; any other id as it is", async () => {
    const mapped = await toStoreThreadId('user:42/chat 7')
    expect(quotedThreadId(mapped)).toBe(`'user:42/chat 7' (stored as '${mapped}')`)
    expect(quotedThreadId('user-42.chat-7')).toBe("'user-42.chat-7'")
    const hashed = await toStoreThreadId(`user:${'x'.repeat(300)}`)
    expect(isHashedThreadId(hashed)).toBe(true)
    expect(quotedThreadId(hashed)).toBe(`'${hashed}'`)
  })
})
