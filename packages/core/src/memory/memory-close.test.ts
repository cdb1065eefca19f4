import { describe, expect, it } from 'vitest'
import { inMemoryStore } from '../stores'
import { gatedSummarizer as gated } from '../testing/gated-summarizer'
import { createMemory } from './create-memory'

const chat = (index: number) => ({
  role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
  content: `message ${index}`,
})

/** The in-memory store with a close() that counts its calls. */
function closableStore() {
  const store = inMemoryStore()
  const calls = { close: 0 }
  return { store: { ...store, close: async () => void calls.close++ }, calls }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20))

describe('memory.settled() and memory.close()', () => {
  it('settled() waits for the background compaction of every open thread', async () => {
    const { summarizer, open } = gated()
    const memory = createMemory({ summarizer, compaction: { waterfall: { window: 4, every: 4 } } })
    const threads = [await memory.thread('settle-a'), await memory.thread('settle-b')]
    for (const thread of threads) for (let index = 0; index < 12; index++) await thread.append(chat(index))
    let settled = false
    const pending = memory.settled().then(() => {
      settled = true
    })
    await tick()
    expect(settled).toBe(false)
    open()
    await pending
    for (const thread of threads) {
      expect(
        (await thread.items()).some((item) => item.type === 'summary'),
        thread.id,
      ).toBe(true)
    }
  })

  it('settled() resolves at once with no threads, and never rejects for a thread that failed to open', async () => {
    const memory = createMemory({
      store: { ...inMemoryStore(), getState: async () => Promise.reject(new Error('down')) },
    })
    await expect(memory.thread('unopened')).rejects.toThrow('down')
    await expect(memory.settled()).resolves.toBeUndefined()
    await expect(createMemory().settled()).resolves.toBeUndefined()
  })

  it('close() settles first, then closes the store once; a second close returns the same promise', async () => {
    const { summarizer, open } = gated()
    const { store, calls } = closableStore()
    const memory = createMemory({ store, summarizer, compaction: { waterfall: { window: 4, every: 4 } } })
    const thread = await memory.thread('closing')
    for (let index = 0; index < 12; index++) await thread.append(chat(index))
    const first = memory.close()
    const second = memory.close()
    expect(second).toBe(first)
    await tick()
    expect(calls.close).toBe(0)
    open()
    await first
    expect(calls.close).toBe(1)
    expect((await store.read('closing')).some((item) => item.type === 'summary')).toBe(true)
    await memory.close()
    expect(calls.close).toBe(1)
  })

  it('close() releases the holds still held through the memory', async () => {
    const store = inMemoryStore()
    const memory = createMemory({ store: { ...store, close: async () => undefined } })
    const thread = await memory.thread('held-at-close')
    await thread.hold({ ttlMs: 60_000 })
    expect(await store.readLease('held-at-close')).toBeDefined()
    await memory.close()
    expect(await store.readLease('held-at-close')).toBeUndefined()
  })

  it('close() works on a store without close()', async () => {
    const memory = createMemory()
    await (await memory.thread('plain')).append(chat(0))
    await expect(memory.close()).resolves.toBeUndefined()
  })
})
