import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { StrataError } from './errors'

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

// Every public name of every entry, listed here so that a new export (or a lost one) is a decision.
describe('the public surface of @strata-memory/core', () => {
  it('has an explicit exports map: the root, testing, store-kit, adapter-kit, tokenizer, tools and prompt-summarizer, types first', () => {
    const entries = [
      '.',
      './testing',
      './store-kit',
      './adapter-kit',
      './tokenizer',
      './tools',
      './prompt-summarizer',
    ]
    expect(Object.keys(packageJson.exports)).toEqual([...entries, './package.json'])
    for (const entry of entries) {
      const conditions = packageJson.exports[entry] as Record<string, Record<string, string>>
      for (const condition of Object.values(conditions)) expect(Object.keys(condition)[0]).toBe('types')
    }
  })

  it('the root exports exactly these runtime names', async () => {
    expect(Object.keys(await import('./index')).sort()).toEqual([
      'DEFAULT_LEVELS',
      'DEFAULT_MODES',
      'MAX_JSON_DEPTH',
      'MAX_JSON_SIZE',
      'MODEL_LIMITS',
      'RETRIEVE_TRANSFORMS',
      'STORE_SPECIFICATION_VERSION',
      'StrataError',
      'Thread',
      'ThreadContent',
      'appThreadIdOf',
      'assertSerializable',
      'assertThreadId',
      'createMemory',
      'fromModelMessage',
      'genericPlugin',
      'inMemoryStore',
      'invalidOptions',
      'isHashedThreadId',
      'isTypedToolOutput',
      'isValidThreadId',
      'jsonCopy',
      'memoryTools',
      'modelLimits',
      'openAppThread',
      'patternSummarizer',
      'plainJson',
      'promptSummarizer',
      'readAppThreadId',
      'scopeTools',
      'shownValue',
      'toStoreThreadId',
      'tokenEstimator',
      'webPagePlugin',
      'withTimeout',
    ])
  })

  it("the repository README's Layout names every runtime name of the root and the adapter kit, in their rows", async () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8')
    const row = (entry: string) =>
      readme.split('\n').find((line) => line.startsWith(`| \`${entry}\` |`)) ?? ''
    for (const [entry, module] of [
      ['@strata-memory/core', await import('./index')],
      ['@strata-memory/core/adapter-kit', await import('./adapter-kit')],
    ] as const) {
      const listed = row(entry)
      expect(listed, `the README's Layout has a row for ${entry}`).not.toBe('')
      const missing = Object.keys(module).filter((name) => !listed.includes(`\`${name}\``))
      expect(missing, `names of ${entry} the README's row leaves out`).toEqual([])
    }
  })

  it('the root exports exactly these types', () => {
    expect(typeExports('./index.ts')).toEqual([
      'ActivePagesOptions',
      'AppendFitOptions',
      'AppendMessageOptions',
      'AppendOptions',
      'AppendUnseenOptions',
      'ArchiveOptions',
      'AutoTransitionsOptions',
      'BudgetOptions',
      'CitationInput',
      'CompactionEndEvent',
      'CompactionOptions',
      'CompactionStartEvent',
      'CompactionTrigger',
      'CompleteInput',
      'ContentAccess',
      'ContentOptions',
      'ContentPlugin',
      'ContentQuery',
      'ContentRecord',
      'ContentSnapshot',
      'ContentToolOptions',
      'ContextEvent',
      'ContextMessage',
      'ContextMessageKind',
      'ContextOptions',
      'ContextStats',
      'DefaultLevel',
      'Divergence',
      'DivergenceHandling',
      'DivergenceOptions',
      'DivergencePoint',
      'Embedder',
      'EnterOptions',
      'EnterScopeInput',
      'EnterScopeOutput',
      'ExitOptions',
      'ExitResult',
      'ExitScopeInput',
      'ExitScopeOutput',
      'FactItem',
      'FilePart',
      'FrameworkTracer',
      'GenericPluginOptions',
      'HistoryMode',
      'HoldOptions',
      'InMemoryStoreOptions',
      'Item',
      'ItemBase',
      'ItemType',
      'JsonObject',
      'JsonValue',
      'LastCompaction',
      'LeaseGrant',
      'LeaseOptions',
      'LeaseWriteOptions',
      'LevelLadder',
      'ListNamespacesOptions',
      'MarkFailedOptions',
      'Memory',
      'MemoryEventListener',
      'MemoryEventName',
      'MemoryEvents',
      'MemoryHitLocation',
      'MemoryOptions',
      'MemoryQueryHit',
      'MemoryQueryInput',
      'MemoryQueryOutput',
      'MemoryRetrieveInput',
      'MemoryRetrieveOutput',
      'MemoryStoreInput',
      'MemoryStoreOutput',
      'MemoryTool',
      'MemoryToolError',
      'MemoryToolName',
      'MemoryTools',
      'MemoryUpdateWorkingConflict',
      'MemoryUpdateWorkingInput',
      'MemoryUpdateWorkingOutput',
      'MessageFormat',
      'MessageInput',
      'MessageItem',
      'MessagePart',
      'MessageRole',
      'MiddleLimits',
      'ModelLimits',
      'NarrowestLimits',
      'OpenScope',
      'PatternSummarizerOptions',
      'PromptSummarizerOptions',
      'ReadOptions',
      'ReasoningPart',
      'RequestFailure',
      'Resource',
      'ResourceDocument',
      'ResourceDocumentHit',
      'ResourceFact',
      'ResourceIndexOptions',
      'ResourceOptions',
      'ResourceQueryHit',
      'ResourceQueryOptions',
      'ResourceRecallOptions',
      'ResourceThreadEntry',
      'ResourceThreadPage',
      'ResourceToolName',
      'RetrieveTransform',
      'RetryBackoffOptions',
      'RewindEvent',
      'RewindOptions',
      'RewindRefusal',
      'RewindResult',
      'ScopeOpening',
      'ScopeOutcome',
      'ScopeTool',
      'ScopeToolName',
      'ScopeToolScope',
      'ScopeTools',
      'ScopeToolsOptions',
      'SearchDocumentsOptions',
      'SeqRange',
      'SetWorkingMemoryOptions',
      'StoreContentMethods',
      'StoreFlags',
      'StoreLeaseMethods',
      'StoreResourceMethods',
      'StoreSlotMethods',
      'StoreSpecificationVersion',
      'StrataErrorCode',
      'StrataErrorDetails',
      'StrataErrorOptions',
      'StrataStore',
      'StrataStoreBase',
      'SummarizeOptions',
      'SummarizeResult',
      'SummarizedFact',
      'Summarizer',
      'SummarizerFailureReason',
      'SummaryCompaction',
      'SummaryItem',
      'SummaryTier',
      'TelemetryAttributeValue',
      'TelemetryAttributes',
      'TelemetryOptions',
      'TelemetrySpan',
      'TelemetryTracer',
      'TextPart',
      'ThreadContentOptions',
      'ThreadContext',
      'ThreadHead',
      'ThreadHold',
      'ThreadOptions',
      'ThreadStatus',
      'ThreadWithContent',
      'ThreadWithScopes',
      'TokenCounter',
      'TokenEstimatorOptions',
      'ToolCallPart',
      'ToolInteraction',
      'ToolResultPart',
      'Transcript',
      'TranscriptOptions',
      'TransitionEvent',
      'TransitionItem',
      'TransitionReason',
      'UnseenMessagesResult',
      'UnseenOptions',
      'UnsequencedItem',
      'UsageReport',
      'VectorRecord',
      'VersionedValue',
      'WaterfallOptions',
      'WebPagePluginOptions',
      'WithTimeoutOptions',
      'WorkingMemoryOptions',
    ])
  })

  it('@strata-memory/core/testing exports exactly these names', async () => {
    expect(Object.keys(await import('./testing/index')).sort()).toEqual([
      'FIXTURE_BASE_TS',
      'agentTurn',
      'countingStore',
      'describeContentChannel',
      'describeStoreConformance',
      'describeThreadOpen',
      'describeThreadRewind',
      'expectRequestsOneAtATime',
      'expectThreadFree',
      'fetchMessages',
      'itemTexts',
      'makeContentRecord',
      'makeEveryItemType',
      'makeFactItem',
      'makeItems',
      'makeMessageItem',
      'makePage',
      'makeSummaryItem',
      'makeTransitionItem',
      'storeWithoutDigest',
      'storedThread',
      'testEmbedder',
      'threadReading',
      'withSeqs',
    ])
    expect(typeExports('./testing/index.ts')).toEqual([
      'ContendedRequestsReport',
      'MakeItemsOptions',
      'MessageItemOverrides',
      'StoreConformanceOptions',
      'StoreReads',
      'StoreWrites',
      'StoredThread',
      'TestEmbedder',
      'TestEmbedderOptions',
    ])
  })

  it('@strata-memory/core/tokenizer exports exactly these names', async () => {
    expect(Object.keys(await import('./tokenizer/index')).sort()).toEqual(['gptTokenizer'])
    expect(typeExports('./tokenizer/index.ts')).toEqual([
      'GptEncodingName',
      'GptTokenizerOptions',
      'TokenCounter',
    ])
  })
  it('@strata-memory/core/tools exports exactly these names', async () => {
    expect(Object.keys(await import('./tools/index')).sort()).toEqual(['memoryTools', 'scopeTools'])
    expect(typeExports('./tools/index.ts')).toEqual([
      'ContentToolOptions',
      'EnterScopeInput',
      'EnterScopeOutput',
      'ExitScopeInput',
      'ExitScopeOutput',
      'MemoryHitLocation',
      'MemoryQueryHit',
      'MemoryQueryInput',
      'MemoryQueryOutput',
      'MemoryRetrieveInput',
      'MemoryRetrieveOutput',
      'MemoryStoreInput',
      'MemoryStoreOutput',
      'MemoryTool',
      'MemoryToolError',
      'MemoryToolName',
      'MemoryTools',
      'MemoryUpdateWorkingConflict',
      'MemoryUpdateWorkingInput',
      'MemoryUpdateWorkingOutput',
      'ResourceToolName',
      'ScopeTool',
      'ScopeToolName',
      'ScopeToolScope',
      'ScopeTools',
      'ScopeToolsOptions',
      'ThreadWithContent',
      'ThreadWithScopes',
    ])
  })

  it('@strata-memory/core/prompt-summarizer exports exactly these names', async () => {
    expect(Object.keys(await import('./prompt-summarizer/index')).sort()).toEqual(['promptSummarizer'])
    expect(typeExports('./prompt-summarizer/index.ts')).toEqual([
      'CompleteInput',
      'PromptSummarizerOptions',
      'Summarizer',
    ])
  })

  // They left the root so that createMemory's bundle does not carry them (issue 30); the root's stubs
  // keep an old import from failing silently or with a bare load error.
  it("the root's memoryTools, scopeTools and promptSummarizer say which subpath to import instead", async () => {
    const root = (await import('./index')) as unknown as Record<string, (...args: unknown[]) => unknown>
    for (const [name, subpath] of [
      ['memoryTools', '@strata-memory/core/tools'],
      ['scopeTools', '@strata-memory/core/tools'],
      ['promptSummarizer', '@strata-memory/core/prompt-summarizer'],
    ] as const) {
      let thrown: unknown
      try {
        root[name]!({})
      } catch (error) {
        thrown = error
      }
      expect(StrataError.isInstance(thrown, 'STRATA_INVALID_OPTIONS'), name).toBe(true)
      expect((thrown as Error).message).toContain(`import { ${name} } from '${subpath}'`)
      expect((thrown as StrataError).details).toMatchObject({ name, subpath })
    }
  })

  it('@strata-memory/core/store-kit exports exactly these names', async () => {
    expect(Object.keys(await import('./store-kit/index')).sort()).toEqual([
      'AUDIT_CODES',
      'DEFAULT_RESOURCE_PAGE_LIMIT',
      'MAX_LEASE_TTL_MS',
      'MAX_RESOURCE_PAGE_LIMIT',
      'ThreadAuditor',
      'assertResourceId',
      'auditWithRepair',
      'bindingConflictError',
      'checkAppendArguments',
      'checkAppendItems',
      'checkArchiveOptions',
      'checkAuditOptions',
      'checkContentQuery',
      'checkContentRecord',
      'checkDocumentKey',
      'checkDocumentValue',
      'checkExpectedResource',
      'checkExpectedSeq',
      'checkLastAppendAt',
      'checkLeaseOptions',
      'checkLeaseOwner',
      'checkLimit',
      'checkNamespace',
      'checkNamespacePrefix',
      'checkOptionKeys',
      'checkReadOptions',
      'checkResourcePageOptions',
      'checkSeq',
      'checkSlotName',
      'checkSlotValue',
      'checkState',
      'checkStoredSize',
      'checkVectorQuery',
      'checkVectorRecords',
      'checkWorkingMemoryArguments',
      'compareContentNewestFirst',
      'compareDocuments',
      'compareResourceThreads',
      'compareVectors',
      'copyItem',
      'documentAddress',
      'encodeResourceCursor',
      'guardedMethods',
      'isPlainObject',
      'leaseOfWrite',
      'matchesContentQuery',
      'namespaceStartsWith',
      'pageResourceThreads',
      'quotedThreadId',
      'seqLowerBound',
      'seqRangeIndexes',
      'seqUpperBound',
      'shareItemStrings',
      'threadBusyError',
      'vectorAddress',
      'workingMemoryConflictError',
    ])
    expect(typeExports('./store-kit/index.ts')).toEqual([
      'AuditCode',
      'AuditEntry',
      'AuditOptions',
      'AuditPlace',
      'AuditReport',
      'AuditSource',
      'OptionKeys',
      'ResourceCursorPosition',
      'StoreAuditMethods',
    ])
  })

  // The framework adapters' plumbing: what left the root entry (history following, the thread-id
  // mapping's building blocks, failure marks) and what the adapters shared as copies before.
  it('@strata-memory/core/adapter-kit exports exactly these names', async () => {
    expect(Object.keys(await import('./adapter-kit/index')).sort()).toEqual([
      'ADAPTER_OPTION_KEYS',
      'APP_THREAD_ID_STATE_KEY',
      'DIVERGENCE_HANDLINGS',
      'FailedThreads',
      'HISTORY_MODES',
      'MAPPED_THREAD_ID_PREFIX',
      'MAX_FAILED_THREADS',
      'MEMORY_TOOL_NAMES',
      'adapterPartMeta',
      'appThreadIdOf',
      'assertMappableThreadId',
      'buildToolSchema',
      'checkAdapterOptions',
      'checkMemoryArgument',
      'checkMemoryOption',
      'checkOneOf',
      'checkOptionKeys',
      'checkResourceOption',
      'escapeThreadIdBytes',
      'failureCode',
      'followHistory',
      'fromToolOutput',
      'isHashedThreadId',
      'markRequestFailed',
      'memoryToolDefinitions',
      'memoryToolInputSchemas',
      'memoryToolSchemasWith',
      'messageFingerprint',
      'nearestKey',
      'normalizedToolSchema',
      'notContinuing',
      'openAppThread',
      'partsText',
      'providerToolCall',
      'quotedThreadId',
      'readAppThreadId',
      'readConversationTail',
      'shortenThreadId',
      'toStoreThreadId',
      'toToolOutput',
      'toolCallPart',
      'toolOutputKind',
      'toolResultPart',
      'transitionEventData',
      'unescapeThreadIdBytes',
      'unseenMessages',
      'withThreadTransitions',
      'workingToolDefinition',
      'zodSchemaBuilder',
    ])
    expect(typeExports('./adapter-kit/index.ts')).toEqual([
      'AdapterOptions',
      'AdapterPartMeta',
      'CheckedAdapterOptions',
      'ComparableMessage',
      'DivergenceHandling',
      'FailOptions',
      'FollowHistoryOptions',
      'HistoryMode',
      'MemoryToolInputs',
      'MemoryToolSchemaName',
      'OptionKeys',
      'PlainToolOutput',
      'PlainToolOutputKind',
      'SchemaBuilder',
      'ToolDefinition',
      'TransitionEventData',
      'UnseenMessagesOptions',
      'UnseenMessagesResult',
      'ZodLike',
      'ZodLikeNumber',
      'ZodLikeSchema',
    ])
  })
})
