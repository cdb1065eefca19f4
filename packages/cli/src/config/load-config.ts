import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { CliError } from '../cli/cli-error'
import type { StrataConfig } from './strata-config'

/** The file names looked for in the working directory when `--config` is not given, in this order. */
export const CONFIG_FILE_NAMES = [
  'strata.config.ts',
  'strata.config.mts',
  'strata.config.mjs',
  'strata.config.js',
] as const

/** A loaded configuration, or the defaults (`path` undefined). */
export interface LoadedConfig {
  path: string | undefined
  config: StrataConfig
}

/**
 * Loads `--config`, else the first `strata.config.{ts,mts,mjs,js}` of `cwd`, else the defaults. A `.ts`
 * config runs through Node's own type stripping. `--levels` overrides the config's ladder.
 */
export async function loadConfig({
  configPath,
  levels,
  cwd = process.cwd(),
}: {
  configPath?: string
  levels?: string
  cwd?: string
}): Promise<LoadedConfig> {
  const path =
    configPath !== undefined
      ? resolve(cwd, configPath)
      : CONFIG_FILE_NAMES.map((name) => resolve(cwd, name)).find((candidate) => existsSync(candidate))
  let config: StrataConfig = {}
  if (path !== undefined) {
    if (!existsSync(path)) throw new CliError(`Config file ${path} not found.`)
    let module: Record<string, unknown>
    try {
      module = (await withoutTypelessWarning(() => import(pathToFileURL(path).href))) as Record<
        string,
        unknown
      >
    } catch (error) {
      throw new CliError(`Cannot load config ${path}: ${firstLine(error)}${commonJsHint(path, error)}`)
    }
    let exported = module.default ?? module.config
    if (typeof exported === 'function') exported = await (exported as () => unknown)()
    if (typeof exported !== 'object' || exported === null || Array.isArray(exported)) {
      throw new CliError(`Config ${path} must export memory options as its default export (an object).`)
    }
    config = { ...(exported as StrataConfig) }
    delete (config as Record<string, unknown>).store
  }
  if (levels !== undefined) {
    const ladder = levels
      .split(',')
      .map((level) => level.trim())
      .filter((level) => level !== '')
    if (ladder.length < 2)
      throw new CliError(`Bad --levels '${levels}': give 2 to 6 names, broad to narrow, comma-separated.`)
    config.levels = ladder
  }
  return { path, config }
}

/**
 * Runs `load` without Node's MODULE_TYPELESS_PACKAGE_JSON warning: a `strata.config.ts` in an app whose
 * package.json names no `type` (a new Next.js app's) is read as an ES module, rightly; the warning's
 * advice (change the app's package.json) is not the CLI's to give. Other warnings pass.
 */
async function withoutTypelessWarning<T>(load: () => Promise<T>): Promise<T> {
  const emitWarning = process.emitWarning
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const options = rest[0]
    const code =
      typeof options === 'object' && options !== null ? (options as { code?: unknown }).code : rest[1]
    if (code === 'MODULE_TYPELESS_PACKAGE_JSON') return
    return (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest)
  } as typeof process.emitWarning
  try {
    return await load()
  } finally {
    process.emitWarning = emitWarning
  }
}

/**
 * A `.ts` config in a package whose package.json says `"type": "commonjs"` is read as CommonJS, so its
 * `export default` is a syntax error: say what to rename it to.
 */
function commonJsHint(path: string, error: unknown): string {
  if (!path.endsWith('.ts') || !(error instanceof SyntaxError)) return ''
  return ' (a .ts file in a CommonJS package is read as CommonJS: name it strata.config.mts)'
}

/** The first line of an error's message. */
export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n')[0] ?? message
}
