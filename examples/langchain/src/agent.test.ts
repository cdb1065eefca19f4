import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)

describe('the LangChain example', () => {
  it('works a project and two tasks offline; the model sees each scope, then summaries in place of closed ones', async () => {
    const { stdout } = await run(process.execPath, [fileURLToPath(new URL('./agent.ts', import.meta.url))], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
    })
    // Inside the second task the model sees the user's request and the task: its opening (worded as
    // new), its own call and result.
    expect(stdout).toContain(
      'Step 7: the model saw 5 messages\n    system: You build web pages. Open a scope for each piece of work.\n    human: Build the Acme landing page: a header, then a footer.\n    human: Task: Footer\n    ai: write_file(',
    )
    expect(stdout).not.toContain('(continued)')
    // Transitions arrive on LangGraph's custom stream as they happen.
    expect(stdout).toContain(
      '[transition] task → project: Task "Header" completed. (Wrote header.html with the Acme header.)',
    )
    expect(stdout).toContain('[transition] project → global: Project "Landing page" completed.')
    // The next request sees the project's transition and summary, not its eleven actions.
    const last = stdout.slice(stdout.indexOf('Step 10:'))
    expect(last).toContain('human: [ACTIONS]: <11 project actions filtered for brevity>')
    expect(last).toContain('human: [SUMMARY]: Landing page done: header.html and footer.html.')
    expect(last).not.toContain('write_file')
    const totals =
      /state holds (\d+) messages; the thread stored (\d+) items .* the last context is (\d+) of (\d+) tokens at level global\. Model calls: (\d+)\./.exec(
        stdout,
      )
    expect(totals).not.toBeNull()
    const [, stateMessages, , contextTokens, totalTokens, calls] = totals!.map(Number)
    expect(stateMessages).toBe(20)
    expect(calls).toBe(10)
    expect(contextTokens).toBeLessThan(totalTokens! / 2)
  })
})
