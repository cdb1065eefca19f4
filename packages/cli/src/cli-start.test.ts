import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { STRATA_BIN } from './testing/run-strata'

// A probe Node loads first: it writes every module specifier the process resolves to a file.
const dir = mkdtempSync(join(tmpdir(), 'strata-cli-start-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const probe = join(dir, 'probe.mjs')
writeFileSync(
  probe,
  `import { registerHooks } from 'node:module'
import { appendFileSync } from 'node:fs'
registerHooks({
  resolve(specifier, context, next) {
    appendFileSync(process.env.STRATA_PROBE_LOG, specifier + '\\n')
    return next(specifier, context)
  },
})
`,
)

let runs = 0

/** Runs the built bin with the probe; returns its output and the modules it resolved. */
function start(args: string[]) {
  const log = join(dir, `run-${++runs}.log`)
  writeFileSync(log, '')
  const result = spawnSync(process.execPath, ['--import', probe, STRATA_BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, STRATA_PROBE_LOG: log, NO_COLOR: '1' },
  })
  return { ...result, modules: readFileSync(log, 'utf8').split('\n').filter(Boolean) }
}

describe('strata starts with what the command runs', () => {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string
  }

  it('--version prints the version and loads neither the program nor core', () => {
    for (const flag of ['--version', '-V']) {
      const run = start([flag])
      expect(run.status).toBe(0)
      expect(run.stdout).toBe(`${version}\n`)
      expect(run.modules.filter((name) => /commander|@strata-memory\/|run-cli/.test(name))).toEqual([])
    }
  })

  it('--help loads commander, not core nor a store', () => {
    const run = start(['--help'])
    expect(run.status).toBe(0)
    expect(run.stdout).toContain('Usage: strata')
    expect(run.modules.some((name) => name === 'commander')).toBe(true)
    expect(run.modules.filter((name) => name.startsWith('@strata-memory/'))).toEqual([])
  })

  it('a command loads core and its store when it runs', () => {
    mkdirSync(join(dir, 'memory'))
    const run = start(['--store', join(dir, 'memory'), 'threads'])
    expect(run.status).toBe(0)
    expect(run.modules).toContain('@strata-memory/core')
    expect(run.modules).toContain('@strata-memory/store-file')
  })
})
