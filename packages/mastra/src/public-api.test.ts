import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as api from './index'

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, unknown>
  peerDependencies: Record<string, string>
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

describe('the public surface of @strata-memory/mastra', () => {
  it('exports exactly these runtime names: nothing by accident', () => {
    expect(Object.keys(api).sort()).toEqual([
      'INTERNAL_CALL_KEY',
      'StrataMemory',
      'THREAD_STATE_KEY',
      'escapeThreadId',
      'fromPromptMessage',
      'isHashedThreadId',
      'mastraSummarizer',
      'resolveStrataThreadId',
      'strataErrorOf',
      'toDBMessages',
      'toPrompt',
      'toStrataThreadId',
      'unescapeThreadId',
    ])
  })

  it('exports exactly these types', () => {
    expect(typeExports('./index.ts')).toEqual([
      'MastraPartMeta',
      'MastraPrompt',
      'MastraSummarizerOptions',
      'MastraThreadRecord',
      'MemoryTransitionData',
      'StrataMastraOptions',
      'StrataMemoryOptions',
      'StrataMessageMetadata',
    ])
  })

  it('has an explicit exports map, types first, ESM and CommonJS, and Mastra as the peer', () => {
    expect(Object.keys(packageJson.exports)).toEqual(['.', './package.json'])
    const root = packageJson.exports['.'] as Record<string, Record<string, string>>
    expect(Object.keys(root)).toEqual(['import', 'require'])
    expect(Object.keys(root.import!)[0]).toBe('types')
    expect(Object.keys(root.require!)[0]).toBe('types')
    expect(packageJson.peerDependencies).toEqual({ '@mastra/core': '^1.71.0' })
  })

  it('the README names every export, the options, and every MastraMemory method in its table', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    const index = readFileSync(new URL('./index.ts', import.meta.url), 'utf8')
    const typeNames = [...index.matchAll(/type (\w+)/g)].map((match) => match[1]!)
    for (const name of [...Object.keys(api), ...typeNames]) {
      expect(readme, name).toMatch(new RegExp(`\\b${name}\\b`))
    }
    expect(readme).toContain(
      'new StrataMemory({ memory, id?, level?, system?, history?, tools?, telemetry?, hold?, readOnly?, options? })',
    )
    expect(readme).toContain('mastraSummarizer({ agent?, model?, name?, timeoutMs?, maxFacts? })')
    for (const method of [
      'getThreadById',
      'saveThread',
      'listThreads',
      'updateThread',
      'updateThreadResourceId',
      'deleteThread',
      'saveMessages',
      'recall',
      'deleteMessages',
      'cloneThread',
      'getWorkingMemory',
      'getWorkingMemoryTemplate',
      'updateWorkingMemory',
      '__experimental_updateWorkingMemoryVNext',
      'listTools',
      'getInputProcessors',
      'getOutputProcessors',
    ]) {
      expect(readme, method).toMatch(new RegExp(`\\| \`${method}\``))
    }
  })
})
