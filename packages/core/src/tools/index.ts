/**
 * `@strata-memory/core/tools`: the memory tools (`memory_retrieve`, `memory_query`, `memory_store` and,
 * for a thread with a resource, `memory_update_working`) and the opt-in scope tools (`enter_scope`,
 * `exit_scope`), framework-neutral. Each adapter exposes them in its framework's own tool format; an app
 * on an adapter never imports this. Kept off the root so that an app importing `createMemory` does not
 * carry the tools' descriptions and input checks.
 */
export type {
  ContentToolOptions,
  MemoryHitLocation,
  MemoryQueryHit,
  MemoryQueryInput,
  MemoryQueryOutput,
  MemoryRetrieveInput,
  MemoryRetrieveOutput,
  MemoryStoreInput,
  MemoryStoreOutput,
  MemoryTool,
  MemoryToolError,
  MemoryToolName,
  MemoryTools,
  MemoryUpdateWorkingConflict,
  MemoryUpdateWorkingInput,
  MemoryUpdateWorkingOutput,
  ResourceToolName,
  ThreadWithContent,
} from '../content'
export { memoryTools } from '../content'
export type {
  EnterScopeInput,
  EnterScopeOutput,
  ExitScopeInput,
  ExitScopeOutput,
  ScopeTool,
  ScopeToolName,
  ScopeToolScope,
  ScopeTools,
  ScopeToolsOptions,
  ThreadWithScopes,
} from '../scopes'
export { scopeTools } from '../scopes'
