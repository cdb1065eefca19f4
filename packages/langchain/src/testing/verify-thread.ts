import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)

/** The built `strata` binary of the workspace's CLI, as a user's shell runs it. */
const STRATA_BIN = join(dirname(require.resolve('@strata-memory/cli/package.json')), 'dist', 'bin.js')

/** What `strata verify <thread> --json` reported about one thread. */
export interface VerifyReport {
  ok: boolean
  threads: { threadId: string; items: number; problems: { kind: string; message: string }[] }[]
}

/** Runs `strata <args…> --store <dir> --json` and parses what it printed. */
export function strataJson<T>(dir: string, args: readonly string[]): Promise<{ code: number; json: T }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [STRATA_BIN, ...args, '--store', dir, '--json'],
      { env: { ...process.env, NO_COLOR: '1', STRATA_MEMORY_DIR: '' }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error)
        try {
          resolve({ code: typeof error?.code === 'number' ? error.code : 0, json: JSON.parse(stdout) as T })
        } catch {
          reject(new Error(`strata ${args.join(' ')} printed no JSON: ${stdout}${stderr}`))
        }
      },
    )
  })
}

/** `strata verify <threadId>` on a file store folder. */
export async function verifyThread(dir: string, threadId: string): Promise<VerifyReport> {
  return (await strataJson<VerifyReport>(dir, ['verify', threadId])).json
}
