import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

/*
 * Test harness: real redis-server processes on free loopback ports, each in its own temporary
 * directory, stopped (and the directory removed) by `stop()`. Not exported from the package.
 */

const run = promisify(execFile)

/** A Redis the tests may use: the one at `REDIS_URL`, or a server started for them. */
export interface TestRedis {
  url: string
  /** True when the tests started this server (and may do anything to it). */
  owned: boolean
  stop(): Promise<void>
}

/** A server started by the harness. */
export interface RedisServer extends TestRedis {
  port: number
  owned: true
  /** Sends `signal` to the server process (SIGKILL: a crash; SIGSTOP/SIGCONT: a hang and its end). */
  signal(signal: NodeJS.Signals): void
  /** Resolves when the server process has exited (after a SIGKILL, say). */
  exited(): Promise<void>
}

/** A three-node (by default) Redis Cluster started by the harness. */
export interface RedisClusterServers {
  ports: number[]
  /** `{ url }` of every node, for `createCluster({ rootNodes })`. */
  rootNodes: { url: string }[]
  stop(): Promise<void>
}

const SERVER = process.env.REDIS_SERVER_BIN ?? 'redis-server'
const CLI = process.env.REDIS_CLI_BIN ?? 'redis-cli'
const READY_TIMEOUT_MS = 10_000

/** A port nobody listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()))
    })
  })
}

/** Runs `redis-cli -p port …args` and returns its output. */
export async function redisCli(port: number, args: string[]): Promise<string> {
  const { stdout } = await run(CLI, ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 30_000 })
  return stdout
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS
  for (;;) {
    if (await check().catch(() => false)) return
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`)
    await sleep(50)
  }
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000)
    child.once('exit', () => {
      clearTimeout(force)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

/**
 * Starts `redis-server` on a free loopback port, without persistence, in a temporary directory.
 * Needs Debian's `redis-server` and `redis-cli` on PATH (or REDIS_SERVER_BIN / REDIS_CLI_BIN).
 */
export async function startRedisServer({
  args = [],
  port: fixedPort,
}: {
  args?: string[]
  /** Start on this port (a restart of a server stopped before) instead of a free one. */
  port?: number
} = {}): Promise<RedisServer> {
  for (let attempt = 1; ; attempt++) {
    const port = fixedPort ?? (await freePort())
    const dir = mkdtempSync(join(tmpdir(), 'strata-redis-'))
    const child = spawn(
      SERVER,
      [
        '--bind',
        '127.0.0.1',
        '--port',
        String(port),
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        ...args,
      ],
      { stdio: 'ignore' },
    )
    const failed = new Promise<never>((_resolve, reject) => {
      child.once('error', (error) =>
        reject(
          new Error(
            `Cannot start ${SERVER} (${error.message}). Install Debian's redis-server (apt-get install redis-server redis-tools) or set REDIS_URL.`,
          ),
        ),
      )
      child.once('exit', (code) => reject(new Error(`${SERVER} on port ${port} exited with ${code}.`)))
    })
    failed.catch(() => undefined)
    const stop = async () => {
      await stopProcess(child)
      rmSync(dir, { recursive: true, force: true })
    }
    try {
      await Promise.race([
        failed,
        waitFor(async () => (await redisCli(port, ['ping'])).trim() === 'PONG', `redis-server on ${port}`),
      ])
      const exited = new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve()
        else child.once('exit', () => resolve())
      })
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        owned: true,
        stop,
        signal: (signal) => child.kill(signal),
        exited: () => exited,
      }
    } catch (error) {
      await stop()
      // The port may have been taken between freePort() and the server's bind: try another one.
      if (attempt >= 3 || String(error).includes('Cannot start')) throw error
      if (fixedPort !== undefined) await sleep(200)
    }
  }
}

/** The Redis at `REDIS_URL` when set (never stopped by the tests), else a fresh server. */
export async function testRedis(): Promise<TestRedis> {
  const url = process.env.REDIS_URL
  if (url !== undefined && url !== '') return { url, owned: false, stop: async () => undefined }
  return startRedisServer()
}

/** Starts `nodes` cluster-enabled servers on loopback, joins them into one cluster and waits until it is ok. */
export async function startRedisCluster({
  nodes = 3,
}: {
  nodes?: number
} = {}): Promise<RedisClusterServers> {
  const servers: RedisServer[] = []
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()))
  }
  try {
    for (let index = 0; index < nodes; index++) {
      servers.push(
        await startRedisServer({
          args: [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            `nodes-${index}.conf`,
            '--cluster-node-timeout',
            '5000',
          ],
        }),
      )
    }
    const ports = servers.map((server) => server.port)
    await run(
      CLI,
      [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { timeout: 30_000 },
    )
    for (const port of ports) {
      await waitFor(
        async () => (await redisCli(port, ['cluster', 'info'])).includes('cluster_state:ok'),
        `cluster_state:ok on ${port}`,
      )
    }
    return { ports, rootNodes: ports.map((port) => ({ url: `redis://127.0.0.1:${port}` })), stop }
  } catch (error) {
    await stop()
    throw error
  }
}
