import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { CONFIG_FILE_NAMES } from './load-config'

/** A config file Node loads only with type stripping. */
const TYPESCRIPT_FILE = /\.[cm]?ts$/

/**
 * The config file a command line will load: `--config <path>` (or `--config=<path>`), else the first
 * `strata.config.*` of `cwd`; undefined when there is none.
 */
export function configPathOf(args: readonly string[], cwd: string): string | undefined {
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!
    if (arg === '--') break
    if (arg === '--config' && at + 1 < args.length) return resolve(cwd, args[at + 1]!)
    if (arg.startsWith('--config=')) return resolve(cwd, arg.slice('--config='.length))
  }
  return CONFIG_FILE_NAMES.map((name) => resolve(cwd, name)).find((candidate) => existsSync(candidate))
}

/**
 * True when this command line loads a TypeScript config and this Node does not strip types by default
 * (Node 22.12–22.17, which the CLI's `engines` allows: stripping is on by default from 22.18). The bin
 * then runs itself again with `--experimental-strip-types`, once.
 */
export function needsTypeStripping(args: readonly string[], cwd: string, env = process.env): boolean {
  if (env.STRATA_CLI_TYPE_STRIPPING === '1') return false
  if ((process.features as { typescript?: unknown }).typescript) return false
  const path = configPathOf(args, cwd)
  return path !== undefined && TYPESCRIPT_FILE.test(path)
}
