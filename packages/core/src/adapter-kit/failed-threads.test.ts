import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { createMemory } from '../memory'
import { inMemoryStore } from '../stores'
import { FailedThreads } from './failed-threads'

describe('FailedThreads', () => {
  it('remembers the most recent threads up to its limit, forgetting the oldest first', () => {
    const failed = new FailedThreads(2)
    failed.add('a')
    failed.add('b')
    failed.add('a') // a is the newest again
    failed.add('c') // b, the oldest, goes
    expect(['a', 'b', 'c'].filter((id) => failed.has(id))).toEqual(['a', 'c'])
    expect(failed.size).toBe(2)
    failed.succeeded('a')
    expect(failed.has('a')).toBe(false)
    expect(() => new FailedThreads(0)).toThrow(StrataError)
  })

  it("reads a 'new' call after a failure as 'auto', in this process and from another's mark", async () => {
    const store = inMemoryStore()
    const thread = await createMemory({ store }).thread('retry')
    await thread.append({ role: 'user', content: 'Weather in Lima?' })
    const here = new FailedThreads()
    expect(await here.historyMode(thread, 'new', 'user')).toBe('new')
    await here.fail(thread, Object.assign(new Error('provider down'), { status: 503 }))
    expect(await here.historyMode(thread, 'new', 'tool')).toBe('auto')
    expect(await here.historyMode(thread, 'full', 'user')).toBe('full')

    // Another process sees the mark in the store, for a call that sends a user message last.
    const other = new FailedThreads()
    const sameThread = await createMemory({ store }).thread('retry')
    expect(await other.historyMode(sameThread, 'new', 'user')).toBe('auto')
    expect(await other.historyMode(sameThread, 'new', 'tool')).toBe('new')
    expect(await sameThread.failures()).toMatchObject([{ reason: 'provider down', code: '503' }])
  })

  it('marks nothing in the store for a call the caller aborted or a stream cancelled without an error', async () => {
    const thread = await createMemory().thread('aborted')
    await thread.append({ role: 'user', content: 'Stop' })
    const failed = new FailedThreads()
    await failed.fail(thread, new Error('aborted'), { aborted: true })
    await failed.fail(thread, undefined)
    expect(failed.has('aborted')).toBe(true)
    expect(await thread.failures()).toEqual([])
  })
})
