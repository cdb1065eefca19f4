import { type SpawnSyncOptions, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, expect, it } from 'vitest'

// The AI SDK adapter's persistence route, exactly as its README prints it, type-checked the way a new
// Next.js app (create-next-app) checks it: TypeScript 5 with the starter's `lib` (dom, dom.iterable,
// esnext), `moduleResolution: bundler`, strict, Next's own types for `after`. The monorepo's own
// TypeScript is newer and its DOM lib has more in it, so a recipe can pass here and fail in the app:
// `for await` over a ReadableStream did. Needs the packages' dist folders and the npm registry.

const root = fileURLToPath(new URL('../../../', import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'strata-readme-route-'))
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000)

const versionOf = (pkg: string, name: string): string => {
  const manifest = JSON.parse(readFileSync(join(root, pkg, 'package.json'), 'utf8'))
  return manifest.devDependencies?.[name] ?? manifest.dependencies[name]
}

function run(command: string, args: string[], options: SpawnSyncOptions = {}): string {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.toLowerCase().startsWith('npm_')) env[key] = value
  }
  const result = spawnSync(command, args, { encoding: 'utf8', env, ...options })
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.status}:\n${result.stdout}\n${result.stderr}`,
    )
  }
  return String(result.stdout)
}

/** The README's code block that follows `marker`. */
function readmeBlock(marker: string): string {
  const readme = readFileSync(join(root, 'packages/ai-sdk/README.md'), 'utf8')
  const at = readme.indexOf(marker)
  expect(at, `the README has "${marker}"`).toBeGreaterThan(-1)
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(at))
  expect(block).not.toBeNull()
  return block![1]!
}

// What the README's snippets leave to the app: its memory, its model and its tools.
const APP_NAMES = `
import type { LanguageModelV4 } from '@ai-sdk/provider'
import type { Memory } from '@strata-memory/core'
import type { ToolSet } from 'ai'
declare const memory: Memory
declare const yourModel: LanguageModelV4
declare const tools: ToolSet
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
  include: ['**/*.ts'],
  exclude: ['node_modules'],
}

it("type-checks the README's persistence route in a new Next.js app's TypeScript setup", {
  timeout: 300_000,
}, () => {
  const packs = join(work, 'packs')
  const built = ['core', 'store-file', 'ai-sdk'].every((name) =>
    existsSync(join(root, 'packages', name, 'dist')),
  )
  run(process.execPath, ['scripts/pack-local.cjs', packs, ...(built ? ['--no-build'] : [])], { cwd: root })
  const tarballs = readdirSync(packs)
    .filter((file) => /^strata-memory-(core|ai-sdk)-.*\.tgz$/.test(file))
    .map((file) => join(packs, file))
  expect(tarballs).toHaveLength(2)

  const app = join(work, 'app')
  mkdirSync(join(app, 'app/api/chat'), { recursive: true })
  run('npm', ['init', '-y'], { cwd: app })
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      ...tarballs,
      `ai@${versionOf('packages/ai-sdk', 'ai')}`,
      `@ai-sdk/provider@${versionOf('packages/ai-sdk', '@ai-sdk/provider')}`,
      `zod@${versionOf('packages/ai-sdk', 'zod')}`,
      `next@${versionOf('apps/web', 'next')}`,
      'typescript@5',
      '@types/node@20',
      '@types/react@19',
    ],
    { cwd: app },
  )
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(NEXT_TSCONFIG, null, 2))
  writeFileSync(join(app, 'app/api/chat/route.ts'), readmeBlock('The route:') + APP_NAMES)
  writeFileSync(join(app, 'agent.ts'), readmeBlock('### The same with a `ToolLoopAgent`') + agentScope())

  const result = spawnSync(join(app, 'node_modules/.bin/tsc'), ['--noEmit', '-p', 'tsconfig.json'], {
    cwd: app,
    encoding: 'utf8',
  })
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
