import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runStrata } from '../testing/run-strata'
import { configPathOf, needsTypeStripping } from './type-stripping'

let app: string
beforeEach(() => {
  app = mkdtempSync(join(tmpdir(), 'strata-config-'))
})
afterEach(() => rmSync(app, { recursive: true, force: true }))

const CONFIG = "const levels: string[] = ['org', 'team', 'ticket']\nexport default { levels }\n"

// Through the built binary, as Node loads a config for a user (vitest's own loader would compile the
// .ts itself and hide what Node does).
describe('a config file, as the built CLI loads it', () => {
  const ONE_LEVEL = "const levels: string[] = ['only']\nexport default { levels }\n"
  const threads = () => runStrata(['threads', '--store', './memory'], { cwd: app })

  it('loads a strata.config.ts in an app whose package.json names no type, without Node warnings', async () => {
    writeFileSync(join(app, 'package.json'), '{"name":"app"}')
    mkdirSync(join(app, 'memory'))
    writeFileSync(join(app, 'strata.config.ts'), CONFIG)
    expect(await threads()).toEqual({ code: 0, stdout: 'No threads.\n', stderr: '' })
    // The config is read: a one-level ladder is refused by the memory it configures.
    writeFileSync(join(app, 'strata.config.ts'), ONE_LEVEL)
    const refused = await threads()
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(/^strata: Bad memory options: A level ladder needs 2 to 6 level names/)
  })

  it('says to rename a .ts config in a CommonJS package, and loads the .mts it names', async () => {
    writeFileSync(join(app, 'package.json'), '{"name":"app","type":"commonjs"}')
    mkdirSync(join(app, 'memory'))
    writeFileSync(join(app, 'strata.config.ts'), CONFIG)
    const refused = await threads()
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain(
      '(a .ts file in a CommonJS package is read as CommonJS: name it strata.config.mts)',
    )
    rmSync(join(app, 'strata.config.ts'))
    writeFileSync(join(app, 'strata.config.mts'), ONE_LEVEL)
    expect((await threads()).stderr).toMatch(/A level ladder needs/)
  })
})

describe('needsTypeStripping', () => {
  it('finds the config a command line loads: --config, --config=, else the working directory', () => {
    writeFileSync(join(app, 'strata.config.ts'), CONFIG)
    expect(configPathOf(['status', 'x', '--config', 'other.mjs'], app)).toBe(join(app, 'other.mjs'))
    expect(configPathOf(['status', '--config=c/x.ts'], app)).toBe(join(app, 'c/x.ts'))
    expect(configPathOf(['status'], app)).toBe(join(app, 'strata.config.ts'))
    expect(configPathOf(['status'], join(app, 'missing'))).toBeUndefined()
  })

  it('asks for a second run only for a TypeScript config on a Node that does not strip types, once', () => {
    writeFileSync(join(app, 'strata.config.ts'), CONFIG)
    const strips = Boolean((process.features as { typescript?: unknown }).typescript)
    expect(needsTypeStripping(['status'], app, {})).toBe(!strips)
    expect(needsTypeStripping(['status', '--config', 'x.mjs'], app, {})).toBe(false)
    expect(needsTypeStripping(['status'], app, { STRATA_CLI_TYPE_STRIPPING: '1' })).toBe(false)
  })
})
