import {
  type ContextMessage,
  type ContextStats,
  createMemory,
  type Item,
  type StrataStore,
} from '@strata-memory/core'
import { createCanvasTools } from './canvas-tools.ts'
import { CONVERSATION, SYSTEM_PROMPT, TASKS } from './landing-page-plan.ts'
import { type DemoLevel, scriptedModel } from './scripted-model.ts'

/** The scenario's name, as reported in the JSON output. */
export const SCENARIO = 'canvas-landing-page'

/** The stage the JSON headline figures come from: the project's view once its last task is closed. */
export const HEADLINE_STAGE = `project-after-task-${TASKS.length}`

/** A moment of the run, and what the model sees at that moment. */
export interface Stage {
  /** `task-1`, `project-after-task-1`, …, `global`. */
  id: string
  /** A heading for people. */
  title: string
  level: DemoLevel
  /** The level view (`thread.view(level)`). */
  view: Item[]
  /** The context sent to the model (`thread.context({ level, system })`). */
  messages: ContextMessage[]
  stats: ContextStats
}

/** A scope the agent closed, as the `transition` event reported it. */
export interface ClosedScope {
  title: string
  fromLevel: string
  agentFacingMessage: string
  userFacingMessage: string | null
  summary: string
}

/** What {@link runScenario} returns. */
export interface ScenarioResult {
  scenario: string
  stages: Stage[]
  closedScopes: ClosedScope[]
  /** Tool calls the agent made, at every level. */
  toolCalls: number
  /** Shapes on the canvas at the end. */
  shapes: number
}

/** Options of {@link runScenario}. */
export interface ScenarioOptions {
  /**
   * Stops a run whose model loops instead of finishing.
   * @default 500
   */
  maxSteps?: number
  /**
   * Where the thread is kept. The run starts by deleting the demo's thread there, so every run
   * writes the same items.
   * @default inMemoryStore()
   */
  store?: StrataStore
}

/** The thread the demo writes; a run replaces the previous run's. */
export const DEMO_THREAD_ID = 'demo.acme-landing-page'

/** A fixed start time, so that two runs write the same items (2025-01-06T09:00:00Z). */
const START_TS = Date.UTC(2025, 0, 6, 9, 0, 0)

/**
 * Runs the demo's agent loop offline: ask the thread for the context, let the scripted model decide,
 * carry out the decision (tool call and result, scope change or reply) and store it. The agent builds a
 * landing page on a canvas: one project, three tasks of twenty tool actions each, and ten project-level
 * actions. Records what the model sees inside each task, at project level after each task and at
 * global level at the end. Deterministic: the same code gives the same figures.
 */
export async function runScenario({ maxSteps = 500, store }: ScenarioOptions = {}): Promise<ScenarioResult> {
  let tick = 0
  let nextId = 0
  const memory = createMemory({
    ...(store === undefined ? {} : { store }),
    clock: () => START_TS + 1000 * tick++,
    generateId: () => `item_${String(++nextId).padStart(4, '0')}`,
  })
  const closedScopes: ClosedScope[] = []
  memory.on('transition', (event) => {
    closedScopes.push({
      title: event.title,
      fromLevel: event.transition.fromLevel,
      agentFacingMessage: event.transition.agentFacingMessage,
      userFacingMessage: event.transition.userFacingMessage,
      summary: event.summary.text,
    })
  })

  await memory.deleteThread(DEMO_THREAD_ID)
  const thread = await memory.thread(DEMO_THREAD_ID)
  const canvas = createCanvasTools()
  const stages: Stage[] = []
  let toolCalls = 0
  let tasksClosed = 0

  const record = async (id: string, title: string, level: DemoLevel) => {
    const view = await thread.view(level)
    const { messages, stats } = await thread.context({ level, system: SYSTEM_PROMPT })
    stages.push({ id, title, level, view, messages, stats })
  }
  const say = (text: string) => thread.append({ role: 'assistant', content: text })

  await thread.append({ role: 'user', content: CONVERSATION.request })
  for (let step = 0; step < maxSteps; step++) {
    const level = thread.level
    const { messages } = await thread.context({ system: SYSTEM_PROMPT })
    const decision = scriptedModel({ level, messages })
    switch (decision.kind) {
      case 'tool-call': {
        const { toolName, input } = decision
        const toolCallId = `call_${String(++toolCalls).padStart(3, '0')}`
        await thread.append({
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId, toolName, input }],
        })
        const { output, isError } = canvas.execute(toolName, input)
        await thread.append({
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId, toolName, output, isError }],
        })
        if (isError)
          throw new Error(`The scripted model's ${toolName} call failed: ${JSON.stringify(output)}`)
        break
      }
      case 'enter':
        await say(decision.text)
        await thread.enter(decision.level, { title: decision.title, instructions: decision.instructions })
        break
      case 'exit': {
        await say(decision.text)
        if (level === 'task') {
          const number = ++tasksClosed
          const of = `${number}/${TASKS.length}`
          await record(`task-${number}`, `Task ${of} "${TASKS[number - 1]?.title}", inside the task`, 'task')
          await thread.exit({ outcome: 'complete' })
          await record(`project-after-task-${number}`, `Project, after task ${of}`, 'project')
          const feedback = CONVERSATION.afterTask[number - 1]
          if (feedback !== undefined) await thread.append({ role: 'user', content: feedback })
        } else {
          await thread.exit({ outcome: 'complete' })
          await thread.append({ role: 'user', content: CONVERSATION.thanks })
        }
        break
      }
      case 'reply':
        await say(decision.text)
        await record('global', 'Global, after the project', 'global')
        return { scenario: SCENARIO, stages, closedScopes, toolCalls, shapes: canvas.shapeCount }
    }
  }
  throw new Error(`The scripted model did not finish within ${maxSteps} steps.`)
}
