import { spawn } from 'node:child_process'

/** Runs a worker script in a Node process of its own to its end: resolves with its stdout, rejects with its stderr. */
export function runWorker(worker: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
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
      code === 0 ? resolve(stdout) : reject(new Error(`worker exited with ${code}: ${stderr}`)),
    )
  })
}
