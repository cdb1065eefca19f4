// An agent with tools and Strata memory works a project and two tasks on a scripted model (no
// network), and prints what the model saw at each step: the scope tools narrow its context to the
// task at hand, and a closed task stands in the project's view as its summary.
import { Agent } from '@mastra/core/agent'
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock'
import { createTool } from '@mastra/core/tools'
import { createMemory } from '@strata-memory/core'
import { StrataMemory } from '@strata-memory/mastra'

type Prompt = Parameters<MastraLanguageModelV2Mock['doGenerate']>[0]['prompt']
type Response = { text: string } | { call: { name: string; input: Record<string, unknown> } }

/** What the scripted model answers, in order: a project, then two tasks inside it. */
const SCRIPT: Response[] = [
  // Call 1: the user asks for a landing page.
  {
    call: {
      name: 'enter_scope',
      input: { level: 'project', title: 'Landing page', instructions: 'A header and a footer.' },
    },
  },
  { call: { name: 'enter_scope', input: { level: 'task', title: 'Write the header' } } },
  { call: { name: 'write_file', input: { path: 'header.html', content: '<header>Acme</header>' } } },
  { call: { name: 'exit_scope', input: { summary: 'header.html written: <header>Acme</header>.' } } },
  { call: { name: 'enter_scope', input: { level: 'task', title: 'Write the footer' } } },
  { call: { name: 'write_file', input: { path: 'footer.html', content: '<footer>(c) Acme</footer>' } } },
  { call: { name: 'exit_scope', input: { summary: 'footer.html written: <footer>(c) Acme</footer>.' } } },
  { call: { name: 'exit_scope', input: { summary: 'Landing page done: header.html and footer.html.' } } },
  { text: 'The landing page is built: header.html and footer.html.' },
  // Call 2: the user asks what was built.
  { text: 'We built a landing page with a header and a footer.' },
]

const seen: Prompt[] = []
let step = 0
const model = new MastraLanguageModelV2Mock({
  modelId: 'scripted',
  doGenerate: async ({ prompt }) => {
    seen.push(prompt)
    const next = SCRIPT[step++]
    if (next === undefined) throw new Error('The script has no more steps.')
    const usage = { inputTokens: 100 + step, outputTokens: 10, totalTokens: 110 + step }
    if ('text' in next)
      return { content: [{ type: 'text', text: next.text }], finishReason: 'stop', usage, warnings: [] }
    return {
      content: [
        {
          type: 'tool-call',
          toolCallId: `call-${step}`,
          toolName: next.call.name,
          input: JSON.stringify(next.call.input),
        },
      ],
      finishReason: 'tool-calls',
      usage,
      warnings: [],
    }
  },
})

const files = new Map<string, string>()
const writeFile = createTool({
  id: 'write_file',
  description: 'Writes a file of the site.',
  execute: async (input: unknown) => {
    const { path, content } = input as { path: string; content: string }
    files.set(path, content)
    return { written: path, bytes: content.length }
  },
})

const memory = createMemory()
const strata = new StrataMemory({ memory, tools: { scopes: true } })
const agent = new Agent({
  id: 'builder',
  name: 'builder',
  instructions: 'You build websites. Open a project scope for a project and a task scope for each task.',
  model,
  tools: { write_file: writeFile },
  memory: strata,
})

const line = (message: Prompt[number]) => {
  const text =
    typeof message.content === 'string'
      ? message.content
      : message.content
          .map((part) => {
            if (part.type === 'text') return part.text
            if (part.type === 'tool-call') return `call ${part.toolName} ${JSON.stringify(part.input)}`
            if (part.type === 'tool-result')
              return `result ${part.toolName} ${JSON.stringify(part.output.value ?? '')}`
            return `[${part.type}]`
          })
          .join(' ')
  const flat = text.replace(/\s+/g, ' ')
  return `  ${message.role}: ${flat.length > 110 ? `${flat.slice(0, 107)}...` : flat}`
}

const memoryOption = { memory: { thread: 'ana@example.com/landing page', resource: 'ana' } }
const thread = await strata.thread('ana@example.com/landing page')
for (const request of ['Build me a landing page: a header, then a footer.', 'What did we build?']) {
  const from = seen.length
  console.log(`> ${request}`)
  const result = await agent.generate(request, { ...memoryOption, maxSteps: 12 })
  for (let index = from; index < seen.length; index++) {
    console.log(`-- model call ${index + 1}: the model saw ${seen[index]!.length} messages`)
    for (const message of seen[index]!) console.log(line(message))
  }
  console.log(`< ${result.text}  (thread level now: ${thread.level})`)
}

const items = await thread.items()
const byType: Record<string, number> = {}
for (const item of items) byType[item.type] = (byType[item.type] ?? 0) + 1
const threads = await strata.listThreads({ filter: { resourceId: 'ana' } })
const { messages } = await strata.recall({ threadId: 'ana@example.com/landing page', perPage: false })
console.log(`Files: ${[...files.keys()].join(', ')}`)
console.log(
  `Stored: ${items.length} items ${JSON.stringify(byType)} in Strata thread '${thread.id}'; model calls: ${seen.length}.`,
)
console.log(
  `Mastra sees: threads of ana: ${threads.threads.map((found) => found.id).join(', ')}; ${messages.length} messages, ${messages.filter((message) => message.content.parts.some((part) => part.type === 'data-memory-transition')).length} transitions.`,
)

// Background compactions end, holds still held are released, and the store is closed.
await memory.close()
