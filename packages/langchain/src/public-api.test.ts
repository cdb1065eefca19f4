import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as api from './index'

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, Record<string, Record<string, string>>>
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

describe('the public surface of @strata-memory/langchain', () => {
  it('exports exactly these runtime names: nothing by accident', () => {
    expect(Object.keys(api).sort()).toEqual([
      'STRATA_RUN_TAG',
      'SUMMARIZER_TAGS',
      'StrataChatMessageHistory',
      'deleteAgentThread',
      'fromLangChainMessage',
      'langchainSummarizer',
      'langchainTracing',
      'memoryToolSchemas',
      'memoryTransitionEvent',
      'strataGraphStore',
      'strataMiddleware',
      'strataTools',
      'toLangChainMessage',
      'toLangChainMessages',
    ])
  })

  it('exports exactly these types', () => {
    expect(typeExports('./index.ts')).toEqual([
      'CoreMessage',
      'DeleteAgentThreadOptions',
      'LangChainMessageMeta',
      'LangChainPartMeta',
      'LangchainSummarizerOptions',
      'MemoryTransitionEvent',
      'StrataChatMessageHistoryOptions',
      'StrataGraphStore',
      'StrataGraphStoreOptions',
      'StrataHoldOptions',
      'StrataKwargs',
      'StrataMessageKind',
      'StrataMiddlewareOptions',
      'StrataToolsOptions',
      'ToLangChainOptions',
    ])
  })

  it('has an explicit exports map for ESM and CJS, types first, and the framework as peers', () => {
    expect(Object.keys(packageJson.exports)).toEqual(['.', './package.json'])
    const root = packageJson.exports['.']!
    expect(Object.keys(root)).toEqual(['import', 'require'])
    for (const condition of Object.values(root)) expect(Object.keys(condition)[0]).toBe('types')
    expect(Object.keys(packageJson.peerDependencies).sort()).toEqual([
      '@langchain/core',
      '@langchain/langgraph-checkpoint',
      'langchain',
      'zod',
    ])
  })

  it('the README names every export, runtime and type, and the options of each factory', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    const index = readFileSync(new URL('./index.ts', import.meta.url), 'utf8')
    const typeNames = [...index.matchAll(/type (\w+)/g)].map((match) => match[1]!)
    expect(typeNames.length).toBeGreaterThan(8)
    for (const name of [...Object.keys(api), ...typeNames]) {
      expect(readme, name).toMatch(new RegExp(`\\b${name}\\b`))
    }
    expect(readme).toContain(
      'strataMiddleware({ memory, threadId?, resource?, level?, system?, history?, onDivergence?, state?, tracing?, hold? })',
    )
    expect(readme).toContain('strataTools(memory, { threadId?, scopes?, resource?, workingMemory? })')
    expect(readme).toContain('langchainSummarizer({ model, name?, structured?, timeoutMs?, maxFacts? })')
    expect(readme).toContain(
      'new StrataChatMessageHistory({ memory, threadId, read?, level?, system?, systemMessages? })',
    )
    expect(readme).toContain('strataGraphStore(memory, { resourceOf? })')
    expect(readme).toContain('StrataError.isInstance(error.cause, ')
  })
})
