import { redisStore } from '@strata-memory/store-redis'
import { afterAll, describe, expect, it } from 'vitest'
import { FIXTURE_THREAD, writeFixtureThread } from './testing/fixture-thread'
import { runStrata, runStrataJson } from './testing/run-strata'
import { startTlsRedis, type TlsRedis, TlsRedisUnavailable } from './testing/tls-redis'

const prefix = 'strata-cli-tls'

let server: TlsRedis | undefined
let unavailable: string | undefined
try {
  server = await startTlsRedis()
  const writer = redisStore({ url: server.plainUrl, prefix })
  await writeFixtureThread(writer)
  await writer.close?.()
} catch (error) {
  if (!(error instanceof TlsRedisUnavailable)) {
    await server?.stop()
    throw error
  }
  unavailable = error.message
  console.warn(`Skipping the rediss:// tests: ${unavailable}`)
}

afterAll(async () => {
  await server?.stop()
})

/** A run with the server's CA trusted the standard way, or with `NODE_EXTRA_CA_CERTS` set to `caFile`. */
const trusting = (caFile: string | undefined) => ({ env: { NODE_EXTRA_CA_CERTS: caFile } })

describe.skipIf(unavailable !== undefined)(
  'strata on Redis over TLS (rediss://, the built binary)',
  {
    timeout: 60_000,
  },
  () => {
    const tls = () => server as TlsRedis
    const store = () => ['--store', tls().url, '--prefix', prefix]

    it('reads the thread through rediss:// when NODE_EXTRA_CA_CERTS trusts the server CA', async () => {
      const threads = await runStrataJson<{ threads: { threadId: string }[] }>(
        [...store(), 'threads'],
        trusting(tls().caFile),
      )
      expect(threads.code, threads.stderr).toBe(0)
      expect(threads.json.threads.map((thread) => thread.threadId)).toEqual([FIXTURE_THREAD])
      const verify = await runStrata([...store(), 'verify', FIXTURE_THREAD], trusting(tls().caFile))
      expect(verify.code, verify.stderr).toBe(0)
      expect(verify.stdout).toMatch(/✓ user-42\.chat-7: \d+ items, no problem/)
      // The same export as over the plain port, and REDIS_URL takes a rediss:// URL too.
      const overTls = await runStrata(['--prefix', prefix, 'export', FIXTURE_THREAD, '--archive'], {
        env: { REDIS_URL: tls().url, NODE_EXTRA_CA_CERTS: tls().caFile },
      })
      const plain = await runStrata([
        '--store',
        tls().plainUrl,
        '--prefix',
        prefix,
        'export',
        FIXTURE_THREAD,
        '--archive',
      ])
      expect(overTls.code, overTls.stderr).toBe(0)
      expect(overTls.stdout).toBe(plain.stdout)
      expect(overTls.stdout).toContain('"format":"strata-content"')
    })

    it('an untrusted or wrong server certificate is a one-line error, exit 2, saying what to do', async () => {
      for (const caFile of [undefined, tls().otherCaFile]) {
        for (const command of [['threads'], ['verify', FIXTURE_THREAD]]) {
          const run = await runStrata([...store(), ...command], trusting(caFile))
          const what = `${command.join(' ')} with NODE_EXTRA_CA_CERTS=${caFile}`
          expect(run.code, what).toBe(2)
          expect(run.stdout, what).toBe('')
          expect(run.stderr.trim().split('\n'), what).toEqual([
            `strata: Cannot connect to Redis at ${tls().url}: self-signed certificate in certificate chain (if a private CA signed the server certificate, run with NODE_EXTRA_CA_CERTS=<its PEM file>).`,
          ])
        }
      }
    })

    it('a plain redis:// URL on the TLS port is a one-line error that points to rediss://', async () => {
      const run = await runStrata(['--store', tls().url.replace('rediss:', 'redis:'), 'threads'])
      expect(run.code).toBe(2)
      expect(run.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^strata: Cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+.*use a rediss:\/\/ URL\)\.$/,
        ),
      ])
    })
  },
)
