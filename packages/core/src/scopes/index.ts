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
} from './scope-tool-types'
export { scopeTools } from './scope-tools'
