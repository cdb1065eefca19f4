import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { ContextMessage, Item } from '@strata-memory/core'
import { beforeAll, describe, expect, it } from 'vitest'
import { jsonReport } from './json-report.ts'
import { PROJECT_STEPS, TASKS } from './landing-page-plan.ts'
import { DEMO_THREAD_ID, HEADLINE_STAGE, runScenario, type ScenarioResult, type Stage } from './scenario.ts'
import { textReport } from './text-report.ts'

const toolCallNames = (items: readonly Item[]) =>
  items.flatMap((item) =>
    item.type === 'message'
      ? item.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolName] : []))
      : [],
  )

const callIds = (message: ContextMessage | undefined, type: 'tool-call' | 'tool-result') =>
  (message?.content ?? []).flatMap((part) => (part.type === type ? [part.toolCallId] : [])).sort()

let result: ScenarioResult
const stage = (id: string): Stage => {
  const found = result.stages.find((candidate) => candidate.id === id)
  if (found === undefined) throw new Error(`no stage ${id}`)
  return found
}

beforeAll(async () => {
  result = await runScenario()
})

describe('the demo scenario', () => {
  it('records each task from inside, the project after each task, and the global level at the end', () => {
    expect(result.stages.map((candidate) => `${candidate.id}:${candidate.level}`)).toEqual([
      'task-1:task',
      'project-after-task-1:project',
      'task-2:task',
      'project-after-task-2:project',
      'task-3:task',
      'project-after-task-3:project',
      'global:global',
    ])
    expect(result.toolCalls).toBe(70)
    expect(result.closedScopes.map((scope) => scope.fromLevel)).toEqual(['task', 'task', 'task', 'project'])
  })

  it('shows the project, after its third task, as its 10 actions and 3 transitions', () => {
    const { view, messages } = stage(HEADLINE_STAGE)
    expect(view.every((item) => item.level === 'project')).toBe(true)
    const transitions = view.filter((item) => item.type === 'transition')
    expect(transitions).toHaveLength(3)
    expect(transitions.every((item) => item.fromLevel === 'task')).toBe(true)
    expect(toolCallNames(view)).toEqual(PROJECT_STEPS.flat().map((step) => step.toolName))
    expect(messages.filter((message) => message.role === 'tool')).toHaveLength(10)
    // The transitions reach the model as their agent-facing text.
    expect(
      messages.filter((message) => JSON.stringify(message.content).includes('[ACTIONS]: <')),
    ).toHaveLength(3)
  })

  it('shows inside each task only that task: its opening, then its own 20 actions', () => {
    for (const [index, task] of TASKS.entries()) {
      const { view } = stage(`task-${index + 1}`)
      expect(view[0]).toMatchObject({ type: 'message', role: 'user', scope: { title: task.title } })
      expect(toolCallNames(view)).toEqual(task.steps.map((step) => step.toolName))
      expect(view.every((item) => item.level === 'task')).toBe(true)
    }
  })

  it('saves more than half the tokens at project level once the tasks are closed', () => {
    const { stats } = stage(HEADLINE_STAGE)
    expect(stats.savedRatio).toBeGreaterThan(0.5)
    expect(stats.savedTokens).toBe(stats.totalTokens - stats.contextTokens)
    expect(stats.itemsVisible).toBe(stage(HEADLINE_STAGE).view.length)
    expect(stats.itemsTotal).toBeGreaterThan(150)
  })

  it('never shows a tool result without its call, nor a call without its result', () => {
    for (const { id, messages } of result.stages) {
      messages.forEach((message, index) => {
        if (message.role === 'tool') {
          expect(callIds(messages[index - 1], 'tool-call'), `${id} message ${index}`).toEqual(
            callIds(message, 'tool-result'),
          )
        }
        const calls = callIds(message, 'tool-call')
        if (calls.length > 0) {
          expect(callIds(messages[index + 1], 'tool-result'), `${id} message ${index}`).toEqual(calls)
        }
      })
    }
  })

  it('gives the same figures on every run', async () => {
    const again = await runScenario()
    expect(jsonReport(again)).toEqual(jsonReport(result))
  })
})

describe('the reports', () => {
  it('--json holds the headline figures of the project after its third task', () => {
    const report = JSON.parse(JSON.stringify(jsonReport(result)))
    const { stats } = stage(HEADLINE_STAGE)
    expect(report).toMatchObject({
      scenario: 'canvas-landing-page',
      stage: HEADLINE_STAGE,
      level: 'project',
      totalTokens: stats.totalTokens,
      contextTokens: stats.contextTokens,
      savedRatio: stats.savedRatio,
      itemsTotal: stats.itemsTotal,
      itemsVisible: stats.itemsVisible,
    })
    expect(report.stages).toHaveLength(7)
  })

  it('the text report has a heading per stage, shortens long runs of tool calls, and ends with a table', () => {
    const text = textReport(result)
    for (const { title } of result.stages) expect(text).toContain(`── ${title} `)
    expect(text).toContain('… 14 more tool calls and results (--full shows them) …')
    expect(text).toMatch(/stage +level +items in view/)
    expect(textReport(result, { full: true })).not.toContain('more tool calls and results')
  })

  // The CLI imports the packages as a user would, from their builds (`pnpm test` builds them first).
  it('the CLI keeps the thread in JSONL files and prints exactly one JSON object with --json', async () => {
    const cwd = fileURLToPath(new URL('..', import.meta.url))
    const dir = mkdtempSync(join(tmpdir(), 'strata-demo-'))
    try {
      const run = () =>
        promisify(execFile)(process.execPath, ['src/main.ts', '--json'], {
          cwd,
          env: { ...process.env, STRATA_MEMORY_DIR: dir },
        })
      const first = JSON.parse((await run()).stdout)
      expect(first).toMatchObject({ ...jsonReport(result), store: 'file', dir })
      const lines = readFileSync(join(dir, 'agents', DEMO_THREAD_ID, 'raw_traces.jsonl'), 'utf8')
        .trim()
        .split('\n')
      expect(lines).toHaveLength(first.stages.at(-1).itemsTotal)
      // A second run replaces the first run's thread instead of adding to it.
      expect(JSON.parse((await run()).stdout)).toEqual(first)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
