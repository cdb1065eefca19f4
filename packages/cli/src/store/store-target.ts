import { resolve } from 'node:path'
import { CliError } from '../cli/cli-error'

/** Where the CLI reads threads: a memory folder of the file store, or a Redis server. */
export type StoreTarget = { kind: 'file'; dir: string } | { kind: 'redis'; url: string; prefix: string }

/** Options that choose the store. */
export interface StoreTargetOptions {
  /** `--store`: a folder, or a `redis://` / `rediss://` URL. */
  store?: string
  /** `--prefix`: the Redis key prefix. @default 'strata' */
  prefix?: string
  /** The environment (`STRATA_MEMORY_DIR`, `REDIS_URL`). */
  env?: NodeJS.ProcessEnv
  /** The folder relative paths are resolved against. @default process.cwd() */
  cwd?: string
}

const URL_SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i

/**
 * The store the CLI uses: `--store` when given, else `STRATA_MEMORY_DIR` (a folder), else `REDIS_URL`,
 * else `./memory`. A URL of another scheme, or a Redis URL that does not parse, is a {@link CliError}.
 */
export function resolveStoreTarget({
  store,
  prefix = 'strata',
  env = process.env,
  cwd = process.cwd(),
}: StoreTargetOptions = {}): StoreTarget {
  const value = nonEmpty(store) ?? nonEmpty(env.STRATA_MEMORY_DIR) ?? nonEmpty(env.REDIS_URL) ?? './memory'
  const scheme = URL_SCHEME.exec(value)?.[1]?.toLowerCase()
  if (scheme === undefined) return { kind: 'file', dir: resolve(cwd, value) }
  if (scheme !== 'redis' && scheme !== 'rediss') {
    throw new CliError(
      `Bad store '${value}': the store is a folder, or a redis:// or rediss:// URL (not ${scheme}://).`,
    )
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new CliError(`Bad store URL '${value}': write it as redis://[user:password@]host[:port][/db].`)
  }
  if (url.hostname === '') throw new CliError(`Bad store URL '${value}': it names no host.`)
  if (url.pathname !== '' && url.pathname !== '/' && !/^\/\d+$/.test(url.pathname)) {
    throw new CliError(`Bad store URL '${value}': the path must be a database number (redis://host:6379/0).`)
  }
  if (!/^[^{}\s]+$/.test(prefix)) throw new CliError(`Bad --prefix '${prefix}': no braces or spaces.`)
  return { kind: 'redis', url: value, prefix }
}

/** How a store target reads in messages, without a password. */
export function describeStoreTarget(target: StoreTarget): string {
  if (target.kind === 'file') return target.dir
  const url = new URL(target.url)
  if (url.password !== '') url.password = '***'
  return `${url.toString()} (prefix ${target.prefix})`
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value
}
