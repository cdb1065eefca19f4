import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { ok, packTarballs, versionIn } from './packed'

// The README's "Try the packages in an app" path, end to end: pack the built packages, install the
// tarballs with npm into a fresh app beside the app's own `ai` from the registry, and use them there.
// Needs the packages' dist folders (`pnpm test` builds them first) and the npm registry.

const work = mkdtempSync(join(tmpdir(), 'strata-packed-app-'))
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000)

const aiVersion = versionIn('packages/ai-sdk', 'ai')

const APP_SCRIPT = `
import { createMemory } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { strataMiddleware } from '@strata-memory/ai-sdk'
import { generateText, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'

const memory = createMemory({ store: fileStore({ dir: './memory' }) })
const mock = new MockLanguageModelV4({
  doGenerate: async () => ({
    content: [{ type: 'text', text: 'Three trees, planted.' }],
    finishReason: { unified: 'stop', raw: undefined },
    usage: {
      inputTokens: { total: 20, noCache: 20, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 4, text: 4, reasoning: undefined },
    },
    warnings: [],
  }),
})
const model = wrapLanguageModel({ model: mock, middleware: strataMiddleware({ memory }) })
const result = await generateText({
  model,
  messages: [{ role: 'user', content: 'Plant three trees' }],
  providerOptions: { strata: { threadId: 'app.chat-1' } },
})
const thread = await memory.thread('app.chat-1')
const items = await thread.items()
console.log(JSON.stringify({
  text: result.text,
  stored: items.map((item) => [item.role, typeof item.content === 'string' ? item.content : item.content.map((part) => part.text).join('')]),
}))
`

it('installs the packed core, store-file and ai-sdk in a fresh npm app with its own ai, and they work there', {
  timeout: 300_000,
}, () => {
  const tarballs = packTarballs(join(work, 'packs'), ['core', 'store-file', 'ai-sdk'])
  expect(tarballs).toHaveLength(3)

  const app = join(work, 'app')
  mkdirSync(app)
  ok('npm', ['init', '-y'], { cwd: app })
  ok('npm', ['pkg', 'set', 'type=module'], { cwd: app })
  ok('npm', ['install', '--no-audit', '--no-fund', ...tarballs, `ai@${aiVersion}`], { cwd: app })
  writeFileSync(join(app, 'app.js'), APP_SCRIPT)

  const output = JSON.parse(ok(process.execPath, ['app.js'], { cwd: app }))
  expect(output).toEqual({
    text: 'Three trees, planted.',
    stored: [
      ['user', 'Plant three trees'],
      ['assistant', 'Three trees, planted.'],
    ],
  })
  // The file store wrote the thread into the app's folder.
  expect(readdirSync(join(app, 'memory'), { recursive: true }).join('\n')).toContain('raw_traces.jsonl')

  // One copy of `ai`: the adapter uses the app's, not one of its own.
  const copies = ok('npm', ['ls', 'ai', '--all', '--parseable'], { cwd: app }).trim().split('\n')
  expect(copies).toEqual([join(app, 'node_modules', 'ai')])
  expect(existsSync(join(app, 'node_modules/@strata-memory/ai-sdk/node_modules/ai'))).toBe(false)
})
