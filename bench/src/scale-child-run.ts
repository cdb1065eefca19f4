import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const CHILD = fileURLToPath(new URL('./scale-child.mjs', import.meta.url))

/** What a child of `scale-child.mjs` reports, or why it reported nothing. */
export type ChildResult =
  | { ok: true; ms: number; maxRssBytes: number; [field: string]: unknown }
  | { ok: false; timedOut: boolean; message: string }

/**
 * Runs `scale-child.mjs` with `args` in a node process of its own (a heap limit high enough that a
 * large thread is measured, not cut short by node's default limit) and returns its JSON line. After
 * `timeoutMs` the child is killed and the result says it timed out. `progress` gets its stderr lines.
 */
export function runChild(
  args: readonly string[],
  timeoutMs: number,
  progress?: (line: string) => void,
): Promise<ChildResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--max-old-space-size=16384', CHILD, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
      if (progress) for (const line of String(chunk).trim().split('\n')) if (line !== '') progress(line)
    })
    let timedOut = false
    // An infinite time-out sets no timer (setTimeout would take Infinity for 1 ms).
    const timer = Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          timedOut = true
          child.kill('SIGKILL')
        }, timeoutMs)
      : undefined
    child.on('error', (error) => {
      clearTimeout(timer)
      resolve({ ok: false, timedOut: false, message: error.message })
    })
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (timedOut) {
        resolve({ ok: false, timedOut: true, message: `timed out after ${Math.round(timeoutMs / 1000)} s` })
        return
      }
      const line = stdout.trim().split('\n').at(-1) ?? ''
      if (code !== 0 || !line.startsWith('{')) {
        const reason = stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 400)
        resolve({ ok: false, timedOut: false, message: `exited ${code ?? signal}: ${reason}` })
        return
      }
      resolve({ ok: true, ...(JSON.parse(line) as { ms: number; maxRssBytes: number }) })
    })
  })
}
