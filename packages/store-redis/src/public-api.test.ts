import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as api from './index'

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, unknown>
}

/** The type-only names an entry file exports (`export type { … }` and `type X` inside `export { … }`). */
function typeExports(entry: string): string[] {
  const source = readFileSync(new URL(entry, import.meta.url), 'utf8')
  expect(source, `${entry} names what it exports`).not.toMatch(/export \*/)
  const names: string[] = []
  for (const [, typeOnly, list] of source.matchAll(/export (type )?\{([^}]*)\}/g)) {
    for (const name of list!.split(',').map((entry) => entry.trim())) {
      if (name !== '' && (typeOnly !== undefined || name.startsWith('type ')))
        names.push(name.replace(/^type /, ''))
    }
  }
  return names.sort()
}

// Every public name, listed here so that a new export (or a lost one) is a decision.
describe('the public surface of @strata-memory/store-redis', () => {
  it('exports exactly these runtime names', () => {
    expect(Object.keys(api).sort()).toEqual(['redisStore'])
  })

  it('exports exactly these types', () => {
    expect(typeExports('./index.ts')).toEqual([
      'RedisPersistence',
      'RedisStore',
      'RedisStoreClient',
      'RedisStoreOptions',
    ])
  })

  it('has an explicit exports map, types first', () => {
    expect(Object.keys(packageJson.exports)).toEqual(['.', './package.json'])
    const conditions = packageJson.exports['.'] as Record<string, Record<string, string>>
    expect(Object.keys(conditions)).toEqual(['import', 'require'])
    for (const condition of Object.values(conditions)) expect(Object.keys(condition)[0]).toBe('types')
  })
})
