import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { ok, packTarballs, root, run, versionIn } from './packed'

// The AI SDK adapter's persistence route, exactly as its README prints it, type-checked the way a new
// Next.js app (create-next-app) checks it: TypeScript 5 with the starter's `lib` (dom, dom.iterable,
// esnext), `moduleResolution: bundler`, strict, Next's own types for `after`. The monorepo's own
// TypeScript is newer and its DOM lib has more in it, so a recipe can pass here and fail in the app:
// `for await` over a ReadableStream did. Needs the packages' dist folders and the npm registry.

const work = mkdtempSync(join(tmpdir(), 'strata-readme-route-'))
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000)

/** The README's code block (of `lang`) that follows `marker`. */
function readmeBlock(marker: string, lang = 'ts'): string {
  const readme = readFileSync(join(root, 'packages/ai-sdk/README.md'), 'utf8')
  const at = readme.indexOf(marker)
  expect(at, `the README has "${marker}"`).toBeGreaterThan(-1)
  const block = new RegExp(`\`\`\`${lang}\n([\\s\\S]*?)\`\`\``).exec(readme.slice(at))
  expect(block).not.toBeNull()
  return block![1]!
}

// What the README's snippets leave to the app: its memory, its model and its tools (typed as an app's
// are: a tool set of named tools, so a tool part of the wrong type is an error).
const APP_NAMES = `
import type { LanguageModelV4 } from '@ai-sdk/provider'
import type { Memory } from '@strata-memory/core'
import type { Tool } from 'ai'
declare const memory: Memory
declare const yourModel: LanguageModelV4
declare const tools: { lookup: Tool<{ q: string }, { rows: string[] }> }
`

// The page snippet's two files in one: the server page's names and the client component's props.
const PAGE_NAMES = `
import type { Memory } from '@strata-memory/core'
import { loadUIMessages } from '@strata-memory/ai-sdk'
import type { Tool } from 'ai'
declare const memory: Memory
declare const tools: { lookup: Tool<{ q: string }, { rows: string[] }> }
declare function Chat(props: { id: string; initialMessages: StrataUIMessage<typeof tools>[] }): React.JSX.Element
declare const id: string
declare const initialMessages: StrataUIMessage<typeof tools>[]
export { Loaded, messages, sendMessage, regenerate, shown, again }
`

// create-next-app's tsconfig (Next 16), as it writes it.
const NEXT_TSCONFIG = {
  compilerOptions: {
    target: 'ES2017',
    lib: ['dom', 'dom.iterable', 'esnext'],
    allowJs: true,
    skipLibCheck: true,
    strict: true,
    noEmit: true,
    esModuleInterop: true,
    module: 'esnext',
    moduleResolution: 'bundler',
    resolveJsonModule: true,
    isolatedModules: true,
    jsx: 'react-jsx',
  },
  include: ['**/*.ts', '**/*.tsx'],
  exclude: ['node_modules'],
}

it("type-checks the README's persistence route and page in a new Next.js app's TypeScript setup", {
  timeout: 300_000,
}, () => {
  const tarballs = packTarballs(join(work, 'packs'), ['core', 'ai-sdk'])
  expect(tarballs).toHaveLength(2)

  const app = join(work, 'app')
  mkdirSync(join(app, 'app/api/chat'), { recursive: true })
  ok('npm', ['init', '-y'], { cwd: app })
  ok(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      ...tarballs,
      `ai@${versionIn('packages/ai-sdk', 'ai')}`,
      `@ai-sdk/provider@${versionIn('packages/ai-sdk', '@ai-sdk/provider')}`,
      `zod@${versionIn('packages/ai-sdk', 'zod')}`,
      `next@${versionIn('apps/web', 'next')}`,
      `@ai-sdk/react@${versionIn('apps/web', '@ai-sdk/react')}`,
      `react@${versionIn('apps/web', 'react')}`,
      'typescript@5',
      '@types/node@20',
      '@types/react@19',
    ],
    { cwd: app },
  )
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(NEXT_TSCONFIG, null, 2))
  writeFileSync(join(app, 'app/api/chat/route.ts'), readmeBlock('The route:') + APP_NAMES)
  writeFileSync(join(app, 'agent.ts'), readmeBlock('### The same with a `ToolLoopAgent`') + agentScope())
  // The page and its chat, typed by the route's tools as the README writes them.
  writeFileSync(join(app, 'app/page.tsx'), readmeBlock('The page (', 'tsx') + PAGE_NAMES)

  const result = run(join(app, 'node_modules/.bin/tsc'), ['--noEmit', '-p', 'tsconfig.json'], { cwd: app })
  expect(result.stdout + result.stderr).toBe('')
  expect(result.status).toBe(0)
})

/**
 * The ToolLoopAgent snippet runs inside the route's `execute`; here it gets the names it uses there, and
 * the route's imports (a snippet names only what it adds).
 */
function agentScope(): string {
  return `${APP_NAMES}
import type { ChatRequest, StrataUIMessage } from '@strata-memory/ai-sdk'
import { strataMiddleware, strataOnError } from '@strata-memory/ai-sdk'
import { convertToModelMessages, type UIMessageStreamWriter } from 'ai'
declare const writer: UIMessageStreamWriter<StrataUIMessage>
declare const hold: ChatRequest<StrataUIMessage>['hold']
declare const message: ChatRequest<StrataUIMessage>['message']
declare const providerOptions: ChatRequest<StrataUIMessage>['providerOptions']
export {}
`
}
