// A LangChain agent with Strata memory, offline: `createAgent` with a MemorySaver checkpointer, the memory
// and scope tools, and a scripted model that works a project with two tasks. Each step prints what the
// model was sent; the agent's state keeps the whole history while the model sees the thread's context.
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { tool } from '@langchain/core/tools'
import { MemorySaver } from '@langchain/langgraph'
import { createMemory } from '@strata-memory/core'
import { type MemoryTransitionEvent, strataMiddleware, strataTools } from '@strata-memory/langchain'
import { createAgent } from 'langchain'
import { z } from 'zod'

const files = new Map<string, string>()
const writeFile = tool(
  async ({ path, content }: { path: string; content: string }) => {
    files.set(path, content)
    return `Wrote ${content.length} characters to ${path}.`
  },
  {
    name: 'write_file',
    description: 'Writes a file.',
    schema: z.object({ path: z.string(), content: z.string() }),
  },
)

/** One line per message: what the model was sent. */
function show(messages: readonly BaseMessage[]): string {
  return messages
    .map((message) => {
      const calls = (message as AIMessage).tool_calls ?? []
      const text = message.text.replace(/\n+/g, ' ⏎ ')
      const called = calls.map((call) => `${call.name}(${JSON.stringify(call.args)})`).join(', ')
      const short = text.length > 90 ? `${text.slice(0, 87)}…` : text
      return `    ${message.type}: ${[short, called].filter(Boolean).join(' ')}`
    })
    .join('\n')
}

let step = 0
const model = fakeModel()
/** A scripted answer that first prints what the model was sent. */
const then = (answer: () => AIMessage) => {
  model.respond((messages) => {
    step++
    console.log(`\nStep ${step}: the model saw ${messages.length} messages\n${show(messages)}`)
    return answer()
  })
}
let callId = 0
const call = (name: string, args: Record<string, unknown>) => () =>
  new AIMessage({ content: '', tool_calls: [{ type: 'tool_call', id: `call_${++callId}`, name, args }] })
const say = (text: string) => () => new AIMessage(text)

// The first request: a project with two tasks, each opened, worked and closed by the model itself.
then(call('enter_scope', { level: 'project', title: 'Landing page', instructions: 'A header and a footer.' }))
then(call('enter_scope', { level: 'task', title: 'Header' }))
then(call('write_file', { path: 'header.html', content: '<header>Acme</header>' }))
then(call('exit_scope', { summary: 'Wrote header.html with the Acme header.' }))
then(call('enter_scope', { level: 'task', title: 'Footer' }))
then(call('write_file', { path: 'footer.html', content: '<footer>© Acme</footer>' }))
then(call('exit_scope', { summary: 'Wrote footer.html with the copyright line.' }))
then(call('exit_scope', { summary: 'Landing page done: header.html and footer.html.' }))
then(say('The landing page is done: header.html and footer.html.'))
// The second request: the project is closed; the model sees its summary, not its steps.
then(say('I built the landing page: header.html (the Acme header) and footer.html (the copyright line).'))

const memory = createMemory()
const agent = createAgent({
  model,
  tools: [writeFile, ...strataTools(memory, { scopes: true })],
  systemPrompt: 'You build web pages. Open a scope for each piece of work.',
  checkpointer: new MemorySaver(),
  middleware: [strataMiddleware({ memory })],
})
const config = { configurable: { thread_id: 'acme-site' } }

async function ask(text: string) {
  console.log(`\n> ${text}`)
  const stream = await agent.stream(
    { messages: [new HumanMessage(text)] },
    { ...config, streamMode: 'custom' },
  )
  for await (const event of stream as AsyncIterable<MemoryTransitionEvent>) {
    console.log(`  [transition] ${event.fromLevel} → ${event.level}: ${event.text} (${event.summary})`)
  }
}

await ask('Build the Acme landing page: a header, then a footer.')
await ask('What did you build?')

const state = await agent.graph.getState(config)
const thread = await memory.thread('acme-site')
const status = await thread.status()
const context = await thread.context()
console.log(
  `\nThe agent's state holds ${(state.values as { messages: BaseMessage[] }).messages.length} messages; ` +
    `the thread stored ${status.items.active} items (${JSON.stringify(status.items.byType)}); ` +
    `the last context is ${context.stats.contextTokens} of ${context.stats.totalTokens} tokens at level ${context.stats.level}. ` +
    `Model calls: ${model.callCount}.`,
)

// Background compactions end, holds still held are released, and the store is closed.
await memory.close()
