import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)

/** The lines printed for one model call, by its number. */
const callLines = (stdout: string, call: number) => {
  const start = stdout.indexOf(`-- model call ${call}:`)
  const end = stdout.indexOf('\n-- model call', start + 1)
  const stop = stdout.indexOf('\n<', start)
  return stdout.slice(start, end === -1 || (stop !== -1 && stop < end) ? stop : end)
}

describe('the Mastra example', () => {
  it('works a project and two tasks offline; each step the model sees only its scope, closed scopes as summaries', async () => {
    const { stdout } = await run(
      process.execPath,
      [fileURLToPath(new URL('./project.ts', import.meta.url))],
      {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
      },
    )
    // Inside the first task the model sees the user's request and the task's opening (worded as new),
    // not the project.
    const header = callLines(stdout, 3)
    expect(header).toContain('user: Build me a landing page')
    expect(header).toContain('user: Task: Write the header')
    expect(header).not.toContain('(continued)')
    expect(header).not.toContain('Project: Landing page')
    expect(header).toContain('the model saw 3 messages')
    // Back in the project, the finished task is its summary; its write_file call is gone.
    const project = callLines(stdout, 5)
    expect(project).toContain('[SUMMARY]: header.html written')
    expect(project).not.toContain('write_file')
    // At the global level, the whole project is one summary; the user's request and answer stay.
    const global = callLines(stdout, 10)
    expect(global).toContain('user: Build me a landing page')
    expect(global).toContain('[SUMMARY]: Landing page done: header.html and footer.html.')
    expect(global).not.toContain('Write the header')
    expect(global).toContain('assistant: The landing page is built')
    expect(stdout).toContain(
      '< We built a landing page with a header and a footer.  (thread level now: global)',
    )
    expect(stdout).toContain('Files: header.html, footer.html')
    expect(stdout).toMatch(/model calls: 10\./)
    expect(stdout).toContain("in Strata thread '_.ana_40example.com_2Flanding_20page'")
    expect(stdout).toContain('threads of ana: ana@example.com/landing page; 21 messages, 3 transitions.')
  })
})
