import type { ContextMessage, JsonObject } from '@strata-memory/core'
import {
  CONVERSATION,
  PROJECT,
  PROJECT_STEPS,
  TASKS,
  type TaskPlan,
  type TaskStep,
} from './landing-page-plan.ts'

/** The levels of the default ladder, which the demo uses. */
export type DemoLevel = 'global' | 'project' | 'task'

/** What the model decides to do next. */
export type ModelDecision =
  /** Call one tool. */
  | { kind: 'tool-call'; toolName: string; input: JsonObject }
  /** Say `text`, then open a narrower scope. */
  | { kind: 'enter'; level: 'project' | 'task'; title: string; instructions: string; text: string }
  /** Say `text`, then close the current scope: its work is done. */
  | { kind: 'exit'; text: string }
  /** Say `text` and wait for the user. */
  | { kind: 'reply'; text: string }

/** What the model is given: the level it works at and the context Strata built. Nothing else. */
export interface ModelInput {
  level: DemoLevel
  messages: readonly ContextMessage[]
}

const textOf = (message: ContextMessage): string =>
  message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')

/** Transitions reach the model as their agent-facing text. */
const closedScopes = (messages: readonly ContextMessage[]) =>
  messages.filter((message) => message.role === 'user' && textOf(message).startsWith('[ACTIONS]')).length

const toolResults = (messages: readonly ContextMessage[]) =>
  messages.flatMap((message) =>
    message.content.flatMap((part) => (part.type === 'tool-result' ? [part] : [])),
  )

/** The scope's title, from the opening item `enter` wrote ("Task: Header bar"). */
function scopeTitle(messages: readonly ContextMessage[], prefix: string): string {
  for (const message of messages) {
    const text = textOf(message)
    if (message.role === 'user' && text.startsWith(prefix))
      return text.slice(prefix.length).split('\n')[0]!.trim()
  }
  throw new Error(`The model cannot see the opening of its scope ("${prefix}…") in its context.`)
}

/** Shape ids by name, read from the `create_shape` results the model can see. */
function shapeIds(messages: readonly ContextMessage[]): Map<string, string> {
  const ids = new Map<string, string>()
  for (const result of toolResults(messages)) {
    const output = result.output
    if (
      result.toolName !== 'create_shape' ||
      output === null ||
      typeof output !== 'object' ||
      Array.isArray(output)
    ) {
      continue
    }
    if (typeof output.name === 'string' && typeof output.id === 'string') ids.set(output.name, output.id)
  }
  return ids
}

function toolInput(step: TaskStep, ids: Map<string, string>): JsonObject {
  const idOf = (name: string) => {
    const id = ids.get(name)
    // A real model would guess here; the scripted one fails loudly, so a context that lost a result shows.
    if (id === undefined) throw new Error(`The model cannot find shape "${name}" in its context.`)
    return id
  }
  switch (step.toolName) {
    case 'create_shape':
      return { ...step.shape }
    case 'update_shape':
      return { id: idOf(step.target), changes: step.changes }
    case 'align_shapes':
      return { ids: step.targets.map(idOf), align: step.align }
    case 'group_shapes':
      return { ids: step.targets.map(idOf), name: step.group }
  }
}

function decideInTask(messages: readonly ContextMessage[]): ModelDecision {
  const title = scopeTitle(messages, 'Task: ')
  const plan: TaskPlan | undefined = TASKS.find((task) => task.title === title)
  if (plan === undefined) throw new Error(`The model has no script for task "${title}".`)
  const done = toolResults(messages).length
  const step = plan.steps[done]
  if (step === undefined) return { kind: 'exit', text: plan.report }
  return { kind: 'tool-call', toolName: step.toolName, input: toolInput(step, shapeIds(messages)) }
}

function decideInProject(messages: readonly ContextMessage[]): ModelDecision {
  const tasksDone = closedScopes(messages)
  const next = TASKS[tasksDone]
  if (next === undefined) return { kind: 'exit', text: PROJECT.report }
  const done = toolResults(messages).length
  const runEnd = PROJECT_STEPS.slice(0, tasksDone + 1).reduce((sum, run) => sum + run.length, 0)
  const step = done < runEnd ? PROJECT_STEPS.flat()[done] : undefined
  if (step !== undefined) return { kind: 'tool-call', toolName: step.toolName, input: step.input }
  return {
    kind: 'enter',
    level: 'task',
    title: next.title,
    instructions: next.instructions,
    text: next.announcement,
  }
}

/**
 * The demo's stand-in for an LLM: a deterministic function of what the model sees. It keeps no state of
 * its own — like a real model it is a stateless caller, so it can only continue a task whose earlier
 * results are in its context, and only knows a task is finished because the transition says so.
 */
export function scriptedModel({ level, messages }: ModelInput): ModelDecision {
  if (level === 'task') return decideInTask(messages)
  if (level === 'project') return decideInProject(messages)
  if (closedScopes(messages) === 0) {
    return {
      kind: 'enter',
      level: 'project',
      title: PROJECT.title,
      instructions: PROJECT.instructions,
      text: PROJECT.announcement,
    }
  }
  return { kind: 'reply', text: CONVERSATION.farewell }
}
