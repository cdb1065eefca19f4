import { spawn } from 'node:child_process'
import { openSync } from 'node:fs'

const devNull = openSync('/dev/null', 'w')

/**
 * Runs `node ARGS` to its end, its stdout to /dev/null; fails on a non-zero exit with what it printed
 * to stderr. Resolves with its wall time in ms and its stderr.
 */
export function runNode(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ wallMs: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, args, { stdio: ['ignore', devNull, 'pipe'], env })
    let stderr = ''
    child.stderr?.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('exit', (code) =>
      code === 0
        ? resolve({ wallMs: performance.now() - started, stderr })
        : reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`)),
    )
  })
}
