import { toStoreThreadId } from '@strata-memory/core'
import { describe, expect, it, vi } from 'vitest'
import { chatEventFilter, isThreadOfChat } from './chat-thread'

const LONG = `chat/${'x'.repeat(295)}`

describe('chatEventFilter', () => {
  it('takes events of the chat at once when the ids tell, and drops the others', async () => {
    const taken: string[] = []
    const filter = chatEventFilter('user:42/chat:7')
    // Before the chat's store id is computed: read back from the event's id.
    filter.forChat('_.user_3A42_2Fchat_3A7', () => taken.push('mapped'))
    filter.forChat('user-42.chat-7', () => taken.push('other'))
    filter.forChat(await toStoreThreadId(LONG), () => taken.push('hashed other'))
    expect(taken).toEqual(['mapped'])
    filter.forChat('_.user_3A42_2Fchat_3A7', () => taken.push('after'))
    expect(taken).toEqual(['mapped', 'after'])
  })

  it("keeps a hashed id's early events, in order, until the chat's own store id is known", async () => {
    const storeId = await toStoreThreadId(LONG)
    const taken: string[] = []
    const another = await toStoreThreadId(`${LONG}!`)
    const filter = chatEventFilter(LONG)
    filter.forChat(storeId, () => taken.push('first'))
    filter.forChat(another, () => taken.push('another long chat'))
    filter.forChat(storeId, () => taken.push('second'))
    expect(taken).toEqual([])
    await vi.waitFor(() => expect(taken).toEqual(['first', 'second']))
    filter.forChat(storeId, () => taken.push('third'))
    expect(taken).toEqual(['first', 'second', 'third'])
  })

  it('drops what waits once stopped', async () => {
    const storeId = await toStoreThreadId(LONG)
    const taken: string[] = []
    const filter = chatEventFilter(LONG)
    filter.forChat(storeId, () => taken.push('early'))
    filter.stop()
    // Once the chat's store id is known, its events run at once; the early one stays dropped.
    await vi.waitFor(() => {
      let ran = false
      filter.forChat(storeId, () => {
        ran = true
      })
      expect(ran).toBe(true)
    })
    expect(taken).toEqual([])
  })

  it('tells a store id of the chat apart without hashing, except a hashed one', async () => {
    expect(isThreadOfChat('user-42.chat-7', 'user-42.chat-7')).toBe(true)
    expect(isThreadOfChat('_.a_20b', 'a b')).toBe(true)
    expect(isThreadOfChat('_.a_20b', 'a  b')).toBe(false)
    expect(isThreadOfChat(await toStoreThreadId(LONG), LONG)).toBeUndefined()
  })
})
