import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort, startRedisServer } from '../../../store-redis/src/testing/redis-server'

const run = promisify(execFile)

/** A redis-server with a TLS port, its certificates made for the test. */
export interface TlsRedis {
  /** `rediss://127.0.0.1:<tls port>`. */
  url: string
  /** The same server's plain port, `redis://127.0.0.1:<port>`, to write fixtures through. */
  plainUrl: string
  /** The PEM file of the CA that signed the server's certificate. */
  caFile: string
  /** The PEM file of another CA, which signed nothing the server shows. */
  otherCaFile: string
  stop(): Promise<void>
}

/** Why a TLS server could not be had here (no openssl, a redis-server built without TLS). */
export class TlsRedisUnavailable extends Error {}

async function openssl(dir: string, args: string[]): Promise<void> {
  await run('openssl', args, { cwd: dir, timeout: 30_000 })
}

/** A self-signed CA: `<name>.key` and `<name>.crt` in `dir`. */
async function makeCa(dir: string, name: string): Promise<void> {
  await openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-days',
    '1',
    '-subj',
    `/CN=${name}`,
  ])
}

/**
 * Makes a CA and a server certificate for 127.0.0.1 and localhost signed by it (and a second,
 * unrelated CA) with `openssl` in a temporary folder, and starts `redis-server` with a TLS port
 * beside its plain one (no client certificates). Throws {@link TlsRedisUnavailable} when openssl or
 * a TLS-capable redis-server is missing.
 */
export async function startTlsRedis(): Promise<TlsRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-tls-'))
  try {
    try {
      await makeCa(dir, 'test-ca')
      await makeCa(dir, 'other-ca')
      await openssl(dir, [
        'req',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        'server.key',
        '-out',
        'server.csr',
        '-subj',
        '/CN=localhost',
      ])
      writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n')
      await openssl(dir, [
        'x509',
        '-req',
        '-in',
        'server.csr',
        '-CA',
        'test-ca.crt',
        '-CAkey',
        'test-ca.key',
        '-CAcreateserial',
        '-out',
        'server.crt',
        '-days',
        '1',
        '-extfile',
        'server.ext',
      ])
    } catch (error) {
      throw new TlsRedisUnavailable(`openssl could not make the test certificates: ${String(error)}`)
    }
    const tlsPort = await freePort()
    let server: Awaited<ReturnType<typeof startRedisServer>>
    try {
      server = await startRedisServer({
        args: [
          '--tls-port',
          String(tlsPort),
          '--tls-cert-file',
          join(dir, 'server.crt'),
          '--tls-key-file',
          join(dir, 'server.key'),
          '--tls-ca-cert-file',
          join(dir, 'test-ca.crt'),
          '--tls-auth-clients',
          'no',
        ],
      })
    } catch (error) {
      throw new TlsRedisUnavailable(
        `redis-server with a TLS port did not start (missing, or built without TLS?): ${String(error)}`,
      )
    }
    return {
      url: `rediss://127.0.0.1:${tlsPort}`,
      plainUrl: server.url,
      caFile: join(dir, 'test-ca.crt'),
      otherCaFile: join(dir, 'other-ca.crt'),
      async stop() {
        await server.stop()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
}
