import { readFileSync } from 'node:fs'
import { expect } from 'vitest'

/**
 * The type-only names an entry file exports (`export type { … }` and `type X` inside `export { … }`),
 * sorted, for the packages' public-api tests. Fails on `export *`: an entry names what it exports.
 */
export function typeExports(entry: URL): string[] {
  const source = readFileSync(entry, 'utf8')
  expect(source, `${entry.pathname} names what it exports`).not.toMatch(/export \*/)
  const names: string[] = []
  for (const [, typeOnly, list] of source.matchAll(/export (type )?\{([^}]*)\}/g)) {
    for (const name of list!.split(',').map((entry) => entry.trim())) {
      if (name !== '' && (typeOnly !== undefined || name.startsWith('type ')))
        names.push(name.replace(/^type /, ''))
    }
  }
  return names.sort()
}
