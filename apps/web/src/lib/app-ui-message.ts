import type { StrataScopeTools, StrataTools, StrataUIMessage } from '@strata-memory/ai-sdk'
import type { agentTools } from './agent-tools'

/** The chat route's tools: Strata's memory and scope tools and the app's editor. */
export type AppTools = StrataTools & StrataScopeTools & ReturnType<typeof agentTools>

/**
 * The app's chat message: Strata's parts (`data-memory-transition`, `data-memory-compaction`) and
 * metadata, with typed `tool-<name>` parts for the route's tools.
 */
export type AppUIMessage = StrataUIMessage<AppTools>
