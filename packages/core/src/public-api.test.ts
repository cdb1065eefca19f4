import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

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
  it('has an explicit exports map: the root, testing, store-kit and tokenizer, types first', () => {
    expect(Object.keys(packageJson.exports)).toEqual([
      '.',
      './testing',
      './store-kit',
      './tokenizer',
      './package.json',
    ])
    for (const entry of ['.', './testing', './store-kit', './tokenizer']) {
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
      'assertSerializable',
      'assertThreadId',
      'createMemory',
      'failureCode',
      'followHistory',
      'fromModelMessage',
      'genericPlugin',
      'inMemoryStore',
      'invalidOptions',
      'isTypedToolOutput',
      'isValidThreadId',
      'jsonCopy',
      'markRequestFailed',
      'memoryTools',
      'messageFingerprint',
      'modelLimits',
      'patternSummarizer',
      'plainJson',
      'promptSummarizer',
      'readConversationTail',
      'scopeTools',
      'tokenEstimator',
      'unseenMessages',
      'webPagePlugin',
      'withTimeout',
    ])
  })

  it('the root exports exactly these types', () => {
    expect(typeExports('./index.ts')).toEqual([
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
      'ComparableMessage',
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
      'ContextOptions',
      'ContextStats',
      'DefaultLevel',
      'Divergence',
      'DivergenceHandling',
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
      'FollowHistoryOptions',
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
      'ResourceFact',
      'ResourceQueryHit',
      'ResourceQueryOptions',
      'ResourceThreadEntry',
      'ResourceThreadPage',
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
      'UnseenMessagesOptions',
      'UnseenMessagesResult',
      'UnsequencedItem',
      'UsageReport',
      'VectorRecord',
      'VersionedValue',
      'WaterfallOptions',
      'WebPagePluginOptions',
      'WithTimeoutOptions',
    ])
  })

  it('@strata-memory/core/testing exports exactly these names', async () => {
    expect(Object.keys(await import('./testing/index')).sort()).toEqual([
      'FIXTURE_BASE_TS',
      'describeContentChannel',
      'describeStoreConformance',
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
      'storedThread',
      'withSeqs',
    ])
    expect(typeExports('./testing/index.ts')).toEqual([
      'ContendedRequestsReport',
      'MakeItemsOptions',
      'MessageItemOverrides',
      'StoreConformanceOptions',
      'StoredThread',
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
  it('@strata-memory/core/store-kit exports exactly these names', async () => {
    expect(Object.keys(await import('./store-kit/index')).sort()).toEqual([
      'MAX_LEASE_TTL_MS',
      'checkAppendArguments',
      'checkArchiveOptions',
      'checkContentQuery',
      'checkContentRecord',
      'checkExpectedSeq',
      'checkLeaseOptions',
      'checkLeaseOwner',
      'checkLimit',
      'checkReadOptions',
      'checkSeq',
      'checkState',
      'compareContentNewestFirst',
      'isPlainObject',
      'leaseOfWrite',
      'matchesContentQuery',
      'threadBusyError',
    ])
    expect(typeExports('./store-kit/index.ts')).toEqual([])
  })
})
