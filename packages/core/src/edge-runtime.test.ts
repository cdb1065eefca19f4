import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const sourceDir = import.meta.dirname
const runtimeSources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return runtimeSources(path)
    return /\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$|\.fixture\.ts$/.test(entry.name) ? [path] : []
  })

describe('core runs in edge runtimes', () => {
  it('no runtime source imports a node: module or a Node global', () => {
    const offenders = runtimeSources(sourceDir).filter((path) => {
      // The testing entry and test-only folders (`tokens/testing/`) run in Node, under vitest.
      if (relative(sourceDir, path).split(/[\\/]/).includes('testing')) return false
      const text = readFileSync(path, 'utf8')
      return /from ['"]node:|require\(['"]node:|\bprocess\.|\bBuffer\b/.test(text)
    })
    expect(offenders.map((path) => relative(sourceDir, path))).toEqual([])
  })
})
