import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

const appDir = fileURLToPath(new URL('..', import.meta.url))
const nextBin = createRequire(import.meta.url).resolve('next/dist/bin/next')

/** A free loopback port, from the system. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/** Builds the app unless a build is there (CI builds it with `pnpm build` first). */
export function ensureBuild() {
  if (existsSync(`${appDir}/.next/BUILD_ID`) && process.env.STRATA_WEB_REBUILD !== '1') return
  const result = spawnSync(process.execPath, [nextBin, 'build'], {
    cwd: appDir,
    stdio: 'inherit',
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  })
  if (result.status !== 0) throw new Error(`next build failed (exit ${result.status})`)
}

/** A running `next start`, and how to stop it. */
export interface AppServer {
  url: string
  output: () => string
  stop: () => Promise<void>
}

/** Starts `next start` on a free port with its memory in `memoryDir` (and `env`); resolves once it answers. */
export async function startApp(memoryDir: string, env: Record<string, string> = {}): Promise<AppServer> {
  const port = await freePort()
  const child: ChildProcess = spawn(
    process.execPath,
    [nextBin, 'start', '--port', String(port), '--hostname', '127.0.0.1'],
    {
      cwd: appDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        NEXT_TELEMETRY_DISABLED: '1',
        STRATA_MEMORY_DIR: memoryDir,
        STRATA_WEB_STEP_MS: '120',
        OPENAI_API_KEY: '',
        ANTHROPIC_API_KEY: '',
        REDIS_URL: '',
        ...env,
      },
    },
  )
  let output = ''
  child.stdout?.on('data', (chunk) => {
    output += chunk
  })
  child.stderr?.on('data', (chunk) => {
    output += chunk
  })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited (${child.exitCode}):\n${output}`)
    try {
      const response = await fetch(`${url}/api/memory?thread=e2e.ping`)
      if (response.ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`next start did not answer within 60 s:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return {
    url,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}
