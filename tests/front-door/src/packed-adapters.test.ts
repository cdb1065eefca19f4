import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { ok, packTarballs, versionIn } from './packed'

// The LangChain and Mastra adapters as an app installs them: packed tarballs (core, the file store, the
// adapter) in an empty npm app beside the framework from the registry, imported both ways the package
// promises (ESM and CommonJS), and run once with the framework's own test model. Needs the packages'
// dist folders and the npm registry.

const work = mkdtempSync(join(tmpdir(), 'strata-packed-adapters-'))
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000)

const devVersion = (pkg: string, name: string): string => versionIn(`packages/${pkg}`, name)

/** A fresh npm app (ESM) with core's, the file store's and the adapter's tarballs and registry packages. */
function appWith(adapter: 'langchain' | 'mastra', registry: string[]): string {
  const files = packTarballs(join(work, `packs-${adapter}`), ['core', 'store-file', adapter])
  expect(files).toHaveLength(3)
  const app = join(work, `${adapter}-app`)
  mkdirSync(app)
  ok('npm', ['init', '-y'], { cwd: app })
  ok('npm', ['pkg', 'set', 'type=module'], { cwd: app })
  ok('npm', ['install', '--no-audit', '--no-fund', ...files, ...registry], { cwd: app })
  return app
}

const LANGCHAIN_APP = `
import { createMemory, openAppThread } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { strataMiddleware } from '@strata-memory/langchain'
import { createAgent } from 'langchain'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { fakeModel } from '@langchain/core/testing'
import { MemorySaver } from '@langchain/langgraph'
import { createRequire } from 'node:module'

const memory = createMemory({ store: fileStore({ dir: './memory' }) })
const model = fakeModel().respond(new AIMessage('Hello Ann.')).respond(new AIMessage('You are Ann.'))
const agent = createAgent({ model, tools: [], checkpointer: new MemorySaver(), middleware: [strataMiddleware({ memory })] })
const config = { configurable: { thread_id: 'user:42/chat 7' } }
await agent.invoke({ messages: [new HumanMessage('I am Ann.')] }, config)
const result = await agent.invoke({ messages: [new HumanMessage('Who am I?')] }, config)
const thread = await openAppThread(memory, 'user:42/chat 7')
const stored = (await thread.items()).map((item) => [item.role, item.content.map((part) => part.text).join('')])
const required = createRequire(import.meta.url)('@strata-memory/langchain')
console.log(JSON.stringify({ answer: result.messages.at(-1).content, stored, cjs: typeof required.strataMiddleware }))
await memory.close()
`

const MASTRA_APP = `
import { Agent } from '@mastra/core/agent'
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock'
import { createMemory, openAppThread } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { StrataMemory } from '@strata-memory/mastra'
import { createRequire } from 'node:module'

const prompts = []
const model = new MastraLanguageModelV2Mock({
  modelId: 'scripted',
  doGenerate: async ({ prompt }) => {
    prompts.push(prompt)
    return {
      content: [{ type: 'text', text: prompts.length === 1 ? 'Three trees, planted.' : 'You planted three trees.' }],
      finishReason: 'stop',
      usage: { inputTokens: 20, outputTokens: 4, totalTokens: 24 },
      warnings: [],
    }
  },
})
const memory = createMemory({ store: fileStore({ dir: './memory' }) })
const agent = new Agent({ id: 'gardener', name: 'gardener', instructions: 'Be brief.', model, memory: new StrataMemory({ memory }) })
const call = { memory: { thread: 'ana@example.com/garden', resource: 'ana' } }
await agent.generate('Plant three trees', call)
const second = await agent.generate('What did I plant?', call)
const threadIds = await memory.store.listThreads()
// The thread Mastra was given, by the id it was given: the mapping core and the CLI share.
const thread = await openAppThread(memory, 'ana@example.com/garden')
const stored = (await thread.items()).map((item) => [item.role, item.content.map((part) => part.text).join('')])
const secondPrompt = JSON.stringify(prompts[1])
const required = createRequire(import.meta.url)('@strata-memory/mastra')
console.log(JSON.stringify({ answer: second.text, threads: threadIds.length, stored, sawFirstAnswer: secondPrompt.includes('Three trees, planted.'), cjs: typeof required.StrataMemory }))
await memory.close()
`

it('the LangChain adapter installs from its tarball beside langchain and runs createAgent with fakeModel', {
  timeout: 420_000,
}, () => {
  const app = appWith('langchain', [
    `langchain@${devVersion('langchain', 'langchain')}`,
    `@langchain/core@${devVersion('langchain', '@langchain/core')}`,
    `@langchain/langgraph@${devVersion('langchain', '@langchain/langgraph')}`,
    'zod@4',
  ])
  writeFileSync(join(app, 'app.js'), LANGCHAIN_APP)
  expect(JSON.parse(ok(process.execPath, ['app.js'], { cwd: app }))).toEqual({
    answer: 'You are Ann.',
    stored: [
      ['user', 'I am Ann.'],
      ['assistant', 'Hello Ann.'],
      ['user', 'Who am I?'],
      ['assistant', 'You are Ann.'],
    ],
    cjs: 'function',
  })
})

it('the Mastra adapter installs from its tarball beside @mastra/core and remembers across two generates', {
  timeout: 420_000,
}, () => {
  const app = appWith('mastra', [`@mastra/core@${devVersion('mastra', '@mastra/core')}`, 'zod@4'])
  writeFileSync(join(app, 'app.js'), MASTRA_APP)
  expect(JSON.parse(ok(process.execPath, ['app.js'], { cwd: app }))).toEqual({
    answer: 'You planted three trees.',
    threads: 1,
    stored: [
      ['user', 'Plant three trees'],
      ['assistant', 'Three trees, planted.'],
      ['user', 'What did I plant?'],
      ['assistant', 'You planted three trees.'],
    ],
    sawFirstAnswer: true,
    cjs: 'function',
  })
})
