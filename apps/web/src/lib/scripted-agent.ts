import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider'
import { fileContent, PROJECT, TASKS, type TaskPlan } from './project-plan'

/** What the scripted agent does next: tool calls (with a sentence first) or a reply. */
export type AgentStep = { text?: string; calls?: { toolName: string; input: unknown }[] }

type PromptMessage = LanguageModelV4Prompt[number]

const textOf = (message: PromptMessage): string =>
  typeof message.content === 'string'
    ? message.content
    : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')

const userTexts = (prompt: LanguageModelV4Prompt) =>
  prompt.filter((message) => message.role === 'user').map(textOf)

/** The results of the tool calls the model can see, by tool name. */
function results(prompt: LanguageModelV4Prompt, toolName: string): unknown[] {
  const found: unknown[] = []
  for (const message of prompt) {
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.toolName === toolName) {
        found.push(part.output.type === 'json' ? part.output.value : undefined)
      }
    }
  }
  return found
}

/** The title of the open scope of a level, from the opening item `enter` wrote ("Task: Hero section"). */
function openScope(prompt: LanguageModelV4Prompt, label: 'Task' | 'Project'): string | undefined {
  for (const text of userTexts(prompt)) {
    const match = new RegExp(`^${label}(?: \\(continued\\))?: (.+)`).exec(text)
    if (match) return match[1]!.split('\n')[0]!.trim()
  }
  return undefined
}

/** Tasks closed so far: each closed task stands in the project's view as a scope summary naming it. */
function closedTasks(prompt: LanguageModelV4Prompt): number {
  const seen = prompt
    .filter((message) => message.role !== 'tool')
    .map(textOf)
    .join('\n')
  return TASKS.filter((task) => seen.includes(task.summary.slice(0, 40))).length
}

function inTask(prompt: LanguageModelV4Prompt, task: TaskPlan): AgentStep {
  const written = new Set(
    results(prompt, 'write_file').flatMap((value) =>
      typeof value === 'object' && value !== null && 'path' in value ? [String(value.path)] : [],
    ),
  )
  const next = task.steps.find((step) => !written.has(step.path))
  if (next === undefined) {
    return { calls: [{ toolName: 'exit_scope', input: { outcome: 'complete', summary: task.summary } }] }
  }
  return { calls: [{ toolName: 'write_file', input: { path: next.path, content: fileContent(task, next) } }] }
}

function inProject(prompt: LanguageModelV4Prompt, last: PromptMessage | undefined): AgentStep {
  const done = closedTasks(prompt)
  const next = TASKS[done]
  if (next !== undefined) {
    return {
      text: `Part ${done + 1} of ${TASKS.length}: ${next.title}.`,
      calls: [
        {
          toolName: 'enter_scope',
          input: { level: 'task', title: next.title, instructions: next.instructions },
        },
      ],
    }
  }
  // Right after a task closed (its transition and summary end the view) or a tool step: report.
  if (last?.role === 'tool' || (last?.role === 'user' && textOf(last).startsWith('['))) {
    return { text: PROJECT.report }
  }
  return {
    text: `So far: ${TASKS.map((task) => task.summary).join(' ')} Ask me for another part, or start a new thread.`,
  }
}

/** "Publish …" asks to publish (a call a person approves); its result, or its denial, is reported. */
function publishStep(last: PromptMessage | undefined): AgentStep | undefined {
  if (last?.role === 'user' && /^publish\b/i.test(textOf(last))) {
    return {
      text: 'Publishing needs your approval.',
      calls: [{ toolName: 'publish_site', input: { target: 'production' } }],
    }
  }
  if (last?.role !== 'tool') return undefined
  const result = last.content.find((part) => part.type === 'tool-result' && part.toolName === 'publish_site')
  if (result === undefined || result.type !== 'tool-result') return undefined
  if (result.output.type === 'execution-denied') {
    return { text: `Not published${result.output.reason ? `: ${result.output.reason}` : ''}.` }
  }
  return { text: 'Published to production.' }
}

/**
 * The agent's next step, a function of the prompt alone (like a model, it keeps no state): at the
 * broadest level it opens the project, in the project it opens the next task, in a task it writes the
 * task's files one call at a time and closes the task with its summary. It knows where it is from what
 * Strata shows it: the scope's opening ("Project: …", "Task: …") and the summaries of closed tasks.
 */
export function nextStep(prompt: LanguageModelV4Prompt): AgentStep {
  const last = prompt.at(-1)
  const publishing = publishStep(last)
  if (publishing !== undefined) return publishing
  const task = openScope(prompt, 'Task')
  if (task !== undefined) {
    const plan = TASKS.find((candidate) => candidate.title === task)
    if (plan !== undefined) return inTask(prompt, plan)
  }
  if (openScope(prompt, 'Project') !== undefined) return inProject(prompt, last)
  if (last?.role === 'tool') return { text: 'Done.' }
  // A closed project stands in the broadest view as its transition and summary: the work is done.
  const summary = userTexts(prompt).findLast((text) => text.startsWith('[SUMMARY]'))
  if (summary !== undefined) {
    return { text: `The project is closed. ${summary.replace(/^\[SUMMARY\]:?\s*/, '')}` }
  }
  return {
    text: PROJECT.announcement,
    calls: [
      {
        toolName: 'enter_scope',
        input: { level: 'project', title: PROJECT.title, instructions: PROJECT.instructions },
      },
    ],
  }
}

/** Four characters a token: what a provider would report, close enough for the budget's calibration. */
const usage = (prompt: LanguageModelV4Prompt, output: number): LanguageModelV4Usage => {
  const input = Math.ceil(JSON.stringify(prompt).length / 4)
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  }
}

/**
 * The offline model of the app: a `LanguageModelV4` that scripts its tool calls deterministically from
 * what it is sent (see {@link nextStep}). `delayMs` spaces the streamed steps so a person sees them.
 */
export class ScriptedAgentModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4' as const
  readonly provider = 'strata-scripted'
  readonly modelId = 'scripted-web-agent'
  readonly supportedUrls = {}
  readonly #delayMs: number
  #calls = 0

  constructor({ delayMs = 0 }: { delayMs?: number } = {}) {
    this.#delayMs = delayMs
  }

  #content(options: LanguageModelV4CallOptions): LanguageModelV4Content[] {
    const step = nextStep(options.prompt)
    const call = ++this.#calls
    const content: LanguageModelV4Content[] = []
    if (step.text !== undefined) content.push({ type: 'text', text: step.text })
    for (const [index, toolCall] of (step.calls ?? []).entries()) {
      content.push({
        type: 'tool-call',
        toolCallId: `call-${call}-${index}`,
        toolName: toolCall.toolName,
        input: JSON.stringify(toolCall.input),
      })
    }
    return content
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const content = this.#content(options)
    return {
      content,
      finishReason: {
        unified: content.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop',
        raw: undefined,
      },
      usage: usage(options.prompt, 20),
      warnings: [],
    }
  }

  async doStream(options: LanguageModelV4CallOptions) {
    const { content, finishReason, usage: used } = await this.doGenerate(options)
    const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }]
    content.forEach((part, index) => {
      if (part.type === 'text') {
        const id = `text-${index}`
        parts.push({ type: 'text-start', id })
        for (const word of part.text.split(/(?<= )/)) parts.push({ type: 'text-delta', id, delta: word })
        parts.push({ type: 'text-end', id })
      } else {
        parts.push(part as LanguageModelV4StreamPart)
      }
    })
    parts.push({ type: 'finish', finishReason, usage: used })
    const delayMs = this.#delayMs
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      async start(controller) {
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs))
        for (const part of parts) controller.enqueue(part)
        controller.close()
      },
    })
    return { stream }
  }
}
