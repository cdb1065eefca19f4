import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { createClient } from 'redis'

/** A redis-server of the test's own on a free loopback port (Debian's `redis-server`). */
export interface TestRedisServer {
  url: string
  stop(): Promise<void>
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()))
    })
  })

/** Starts the server and waits until it answers PING. */
export async function startRedis(): Promise<TestRedisServer> {
  const port = await freePort()
  const child: ChildProcess = spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  )
  const url = `redis://127.0.0.1:${port}`
  for (let attempt = 0; ; attempt++) {
    const client = createClient({ url, socket: { reconnectStrategy: false } })
    client.on('error', () => undefined)
    try {
      await client.connect()
      await client.ping()
      await client.close()
      break
    } catch (error) {
      if (attempt > 100) throw error
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))
    },
  }
}
