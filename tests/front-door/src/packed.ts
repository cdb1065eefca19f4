import { type SpawnSyncOptions, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

// What the front-door tests share: npm run as an app author runs it, and the packed packages.

/** The repository's root. */
export const root = fileURLToPath(new URL('../../../', import.meta.url))

/** The environment npm gets: none of this test run's pnpm settings (npm reads npm_config_* variables). */
export function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.toLowerCase().startsWith('npm_')) env[key] = value
  }
  return env
}

/** Runs a command as an app author would; its exit status and output, as text. */
export function run(
  command: string,
  args: string[],
  options: SpawnSyncOptions = {},
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(command, args, { encoding: 'utf8', env: npmEnv(), ...options })
  return { status: result.status, stdout: String(result.stdout), stderr: String(result.stderr) }
}

/** Runs a command that must succeed; its stdout (else an error with everything it printed). */
export function ok(command: string, args: string[], options: SpawnSyncOptions = {}): string {
  const result = run(command, args, options)
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.status}:\n${result.stdout}\n${result.stderr}`,
    )
  }
  return result.stdout
}

/**
 * Packs the publishable packages into `folder` (`npm run pack:local`, without a build when the named
 * packages are built) and returns the tarballs of `names` (`core`, `store-file`, …).
 */
export function packTarballs(folder: string, names: readonly string[]): string[] {
  const built = names.every((name) => existsSync(join(root, 'packages', name, 'dist')))
  ok(process.execPath, ['scripts/pack-local.cjs', folder, ...(built ? ['--no-build'] : [])], { cwd: root })
  const wanted = new RegExp(`^strata-memory-(${names.join('|')})-.*\\.tgz$`)
  return readdirSync(folder)
    .filter((file) => wanted.test(file))
    .map((file) => join(folder, file))
}

/** A dependency's version in a workspace package's manifest (devDependencies first). */
export function versionIn(pkg: string, name: string): string {
  const manifest = JSON.parse(readFileSync(join(root, pkg, 'package.json'), 'utf8'))
  return manifest.devDependencies?.[name] ?? manifest.dependencies[name]
}
