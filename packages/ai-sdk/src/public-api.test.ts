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

describe('the public surface of @strata-memory/ai-sdk', () => {
  it('exports exactly these runtime names: nothing by accident', () => {
    expect(Object.keys(api).sort()).toEqual([
      'aiSdkSummarizer',
      'contextStatsMetadata',
      'fromProviderMessage',
      'fromProviderPrompt',
      'fromResponseContent',
      'loadUIMessages',
      'memoryCompactionChunk',
      'memoryToolSchemas',
      'memoryTransitionChunk',
      'openChatRequest',
      'readCallOptions',
      'sendLastMessage',
      'storeFinalToolResults',
      'strataErrorFromResponse',
      'strataErrorResponse',
      'strataErrorStatus',
      'strataMiddleware',
      'strataOnError',
      'strataTools',
      'toProviderPrompt',
      'writeMemoryParts',
      'writeMissedTransitions',
    ])
  })

  it('exports exactly these types', () => {
    expect(typeExports('./index.ts')).toEqual([
      'AiSdkPartMeta',
      'AiSdkSummarizerOptions',
      'ChatRequest',
      'CoreMessage',
      'LoadUIMessagesOptions',
      'MemoryCompactionData',
      'MemoryTransitionData',
      'OpenChatRequestOptions',
      'ResponseMeta',
      'SplitPrompt',
      'StoreFinalToolResultsOptions',
      'StrataCallOptions',
      'StrataChatRequestBody',
      'StrataDataTypes',
      'StrataErrorInfo',
      'StrataFailedRequest',
      'StrataMessageMetadata',
      'StrataMiddlewareOptions',
      'StrataMiddlewareTelemetry',
      'StrataResourceTools',
      'StrataScopeTools',
      'StrataTools',
      'StrataToolsOptions',
      'StrataUIMessage',
      'ToolApprovalRecord',
      'WriteMemoryPartsOptions',
      'WriteMissedTransitionsOptions',
    ])
  })

  it('has an explicit exports map, types first, and the framework as peers', () => {
    expect(Object.keys(packageJson.exports)).toEqual(['.', './client', './package.json'])
    expect(Object.keys(packageJson.exports['.'] as object)[0]).toBe('types')
    expect(Object.keys(packageJson.exports['./client'] as object)[0]).toBe('types')
    expect(Object.keys(packageJson.peerDependencies).sort()).toEqual(['@ai-sdk/provider', 'ai', 'zod'])
  })

  it('the client entry holds only what a page needs, with no Node or server imports', async () => {
    const client = await import('./client/index')
    expect(Object.keys(client).sort()).toEqual(['sendLastMessage', 'strataErrorFromResponse'])
    // The page's message type, for useChat<StrataUIMessage>(): types only, nothing at run time.
    expect(typeExports('./client/index.ts')).toEqual([
      'MemoryCompactionData',
      'MemoryTransitionData',
      'StrataChatRequestBody',
      'StrataDataTypes',
      'StrataErrorInfo',
      'StrataFailedRequest',
      'StrataMessageMetadata',
      'StrataUIMessage',
    ])
    for (const file of ['send-last-message.ts', 'strata-error-from-response.ts', 'error-texts.ts']) {
      const source = readFileSync(new URL(`./client/${file}`, import.meta.url), 'utf8')
      const imports = [...source.matchAll(/from '([^']+)'/g)].map((match) => match[1]!)
      expect(
        imports.filter((name) => !name.startsWith('./') && name !== 'ai'),
        file,
      ).toEqual([])
    }
  })

  it('the README names every factory and the options of the middleware and the summarizer', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    for (const name of ['strataMiddleware', 'strataTools', 'aiSdkSummarizer', 'writeMemoryParts']) {
      expect(readme, name).toContain(name)
    }
    expect(readme).toContain(
      'strataMiddleware({ memory, threadId?, resource?, level?, system?, history?, onDivergence?, telemetry?, hold?, toolStepWaitMs? })',
    )
    expect(readme).toContain('aiSdkSummarizer({ model, name?, timeoutMs?, maxFacts?, maxOutputTokens? })')
    for (const key of ['threadId', 'level', 'history', 'internal'])
      expect(readme).toContain(`providerOptions.strata.${key}`)
    expect(readme).toContain(
      'writeMemoryParts({ writer, memory, threadId, transitions?, stats?, compactions? })',
    )
  })

  it('the README names every export, runtime and type', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    const index = readFileSync(new URL('./index.ts', import.meta.url), 'utf8')
    const typeNames = [...index.matchAll(/type (\w+)/g)].map((match) => match[1]!)
    expect(typeNames.length).toBeGreaterThan(10)
    for (const name of [...Object.keys(api), ...typeNames]) {
      expect(readme, name).toMatch(new RegExp(`\\b${name}\\b`))
    }
  })
})
