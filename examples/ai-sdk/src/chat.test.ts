import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)

describe('the AI SDK example', () => {
  it('runs a useChat client against the route offline: the model answers from memory after the task left its context', async () => {
    const { stdout } = await run(process.execPath, [fileURLToPath(new URL('./chat.ts', import.meta.url))], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
    })
    // The route's Response carried the transition part and the stats metadata to the client over SSE.
    expect(stdout).toContain('(finish_task) [Project "Build a pricing page" completed.] The task is closed.')
    expect(stdout).toMatch(/level global; context \d+ of \d+ tokens \(\d+% saved\)/)
    // The pricing docs were offloaded inside a task that has since closed; memory tools bring them back.
    expect(stdout).toContain('(memory_query) (memory_retrieve) From memory: Pro: 12 EUR')
    expect(stdout).toMatch(/user: \[ACTIONS\]: <\d+ project actions filtered for brevity>/)
    // useChat's regenerate() rewinds the thread: the old answer and its two tool steps (5 items) move
    // to the archive and the model answers the same question again.
    expect(stdout).toContain('(regenerate)\n< From memory: Pro: 12 EUR, 10 projects')
    expect(stdout).toContain('the old answer: 5 items moved to the archive')
    const stored = /Stored: (\d+) items \((.+)\), (\d+) archived; model calls: (\d+)\./.exec(stdout)
    expect(stored).not.toBeNull()
    // Re-sending the whole history each turn stores each message once: 19 messages for 12 model calls,
    // the regenerated answer in place of the old one, which is archived, not stored twice.
    expect(JSON.parse(stored![2]!)).toEqual({ message: 19, transition: 1, summary: 1 })
    expect(Number(stored![3])).toBe(5)
    expect(Number(stored![4])).toBe(12)
    // Two requests on one chat at once: one is served, the other refused with a 409.
    expect(stdout).toContain('Two requests at once: 200, and 409 STRATA_THREAD_BUSY.')
  })
})
