import { HEADLINE_STAGE, type ScenarioResult, type Stage } from './scenario.ts'

/** The figures of one stage. */
export interface StageFigures {
  stage: string
  level: string
  totalTokens: number
  contextTokens: number
  savedTokens: number
  savedRatio: number
  itemsTotal: number
  itemsVisible: number
  messages: number
}

/**
 * What `--json` prints: the headline figures (the project's view once its last task is closed) at the
 * top level, the same figures for every stage, and the scopes the agent closed.
 */
export interface JsonReport extends StageFigures {
  scenario: string
  tokenCounter: string
  toolCalls: number
  stages: StageFigures[]
  closedScopes: { title: string; level: string; agentFacingMessage: string; summary: string }[]
}

const figures = ({ id, stats }: Stage): StageFigures => ({
  stage: id,
  level: stats.level,
  totalTokens: stats.totalTokens,
  contextTokens: stats.contextTokens,
  savedTokens: stats.savedTokens,
  savedRatio: stats.savedRatio,
  itemsTotal: stats.itemsTotal,
  itemsVisible: stats.itemsVisible,
  messages: stats.messages,
})

/** Builds the JSON report of a run. */
export function jsonReport(result: ScenarioResult): JsonReport {
  const headline = result.stages.find((stage) => stage.id === HEADLINE_STAGE)
  if (headline === undefined) throw new Error(`The run has no stage '${HEADLINE_STAGE}'.`)
  return {
    scenario: result.scenario,
    ...figures(headline),
    tokenCounter: headline.stats.tokenCounter,
    toolCalls: result.toolCalls,
    stages: result.stages.map(figures),
    closedScopes: result.closedScopes.map((scope) => ({
      title: scope.title,
      level: scope.fromLevel,
      agentFacingMessage: scope.agentFacingMessage,
      summary: scope.summary,
    })),
  }
}
