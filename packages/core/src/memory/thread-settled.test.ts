import { describe, expect, it } from 'vitest'
import { gatedSummarizer as gated } from '../testing/gated-summarizer'
import { createMemory } from './create-memory'

const chat = (index: number) => ({
  role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
  content: `message ${index}`,
})

describe('thread.settled()', () => {
  it('settles at once when nothing runs in the background', async () => {
    const thread = await createMemory().thread('settled-idle')
    await thread.append(chat(0))
    await expect(thread.settled()).resolves.toBeUndefined()
  })

  it('settles only after the background compaction a write started has written its summary', async () => {
    const { summarizer, open } = gated()
    const memory = createMemory({ summarizer, compaction: { waterfall: { window: 4, every: 4 } } })
    const thread = await memory.thread('settled-waterfall')
    const ended: string[] = []
    memory.on('compaction-end', (event) => ended.push(event.trigger))
    for (let index = 0; index < 12; index++) await thread.append(chat(index))
    let settled = false
    const pending = thread.settled().then(() => {
      settled = true
    })
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(settled).toBe(false)
    expect(ended).toEqual([])
    open()
    await pending
    expect(ended).toContain('waterfall')
    const summaries = (await thread.items()).filter((item) => item.type === 'summary')
    expect(summaries.length).toBeGreaterThan(0)
  })
})
