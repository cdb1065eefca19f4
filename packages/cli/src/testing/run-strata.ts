import { execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The built binary the tests run, as a user's shell would. */
export const STRATA_BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url))

/** What one run of `strata` printed and how it exited. */
export interface StrataRun {
  code: number
  stdout: string
  stderr: string
}

/** The environment of a run: no store from the test process's own environment, no colours. */
export function strataEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { STRATA_MEMORY_DIR: _dir, REDIS_URL: _url, FORCE_COLOR: _force, ...rest } = process.env
  return { ...rest, NO_COLOR: '1', ...extra }
}

function requireBuild(): void {
  if (!existsSync(STRATA_BIN))
    throw new Error(`${STRATA_BIN} is missing: build first (pnpm --filter @strata-memory/cli... build).`)
}

/** Runs `node dist/bin.js …args` in `cwd` and resolves with its exit code and output. */
export function runStrata(
  args: readonly string[],
  { cwd, env }: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<StrataRun> {
  requireBuild()
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [STRATA_BIN, ...args],
      { cwd, env: strataEnvironment(env), maxBuffer: 256 * 1024 * 1024, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error)
        resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr })
      },
    )
  })
}

/** Runs `strata … --json` and parses stdout. */
export async function runStrataJson<T = Record<string, unknown>>(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number; json: T; stderr: string }> {
  const run = await runStrata([...args, '--json'], options)
  let json: T
  try {
    json = JSON.parse(run.stdout) as T
  } catch {
    throw new Error(
      `strata ${args.join(' ')} --json printed no JSON (exit ${run.code}): ${run.stdout}${run.stderr}`,
    )
  }
  return { code: run.code, json, stderr: run.stderr }
}

/** Starts `strata …args` in the background (for `tail`), collecting its stdout. */
export function startStrata(args: readonly string[]) {
  requireBuild()
  const child = spawn(process.execPath, [STRATA_BIN, ...args], {
    env: strataEnvironment(),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  return {
    child,
    output: () => stdout,
    async waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<string> {
      const deadline = Date.now() + timeoutMs
      while (!pattern.test(stdout)) {
        if (Date.now() > deadline) throw new Error(`Timed out waiting for ${pattern} in: ${stdout}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      return stdout
    },
    stop: () =>
      new Promise<number | null>((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode)
        child.once('exit', (code) => resolve(code))
        child.kill('SIGINT')
      }),
  }
}
