import { spawn } from 'node:child_process'

/** Runs `command` to its end: resolves with its stdout, rejects with its exit code and stderr. */
export function runProcess(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${command} exited with ${code}: ${stderr}`)),
    )
  })
}

/** Runs a worker script in a Node process of its own to its end (see {@link runProcess}). */
export const runWorker = (worker: string, args: readonly string[]): Promise<string> =>
  runProcess(process.execPath, [worker, ...args])
