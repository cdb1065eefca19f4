import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const engines: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node
const neededMajor = Number(/\d+/.exec(engines)?.[0])

/** A Node older than the root engines allow: the machine's system Node (20 on this project's machines). */
function findOldNode(): { path: string; version: string } | undefined {
  for (const path of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(path)) continue
    const version = spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim()
    if (Number(version.split('.')[0]) < neededMajor) return { path, version }
  }
  return undefined
}

const oldNode = findOldNode()
const npmBeside = oldNode && join(dirname(oldNode.path), 'npm')
const tooOld = (version: string) =>
  `Strata needs Node.js >= ${neededMajor} (found ${version}). Install Node ${neededMajor} or newer (https://nodejs.org) and run the command again.\n`

/** The environment a visitor's shell has: the old Node first on PATH, nothing from this test run's pnpm. */
function visitorEnv(nodePath: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.toLowerCase().startsWith('npm_') && key !== 'PNPM_HOME') env[key] = value
  }
  env.PATH = `${dirname(nodePath)}:/usr/bin:/bin`
  return env
}

describe('the Node version check', () => {
  it('passes silently on this Node', () => {
    const result = spawnSync(process.execPath, ['scripts/check-node.cjs'], { cwd: root, encoding: 'utf8' })
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
      status: 0,
      stdout: '',
      stderr: '',
    })
  })

  describe.each([
    ['the check itself', ['scripts/check-node.cjs']],
    ['the pnpm wrapper (setup, demo, test)', ['scripts/pnpm.cjs', 'install']],
    ['the pack script', ['scripts/pack-local.cjs']],
  ])('%s on an old Node', (_name, args) => {
    it('stops with one line saying which version is needed and which was found, exit 1', (context) => {
      if (!oldNode) return context.skip(`no Node older than ${neededMajor} on this machine to run it with`)
      const result = spawnSync(oldNode.path, args, {
        cwd: root,
        encoding: 'utf8',
        env: visitorEnv(oldNode.path),
      })
      expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
        status: 1,
        stdout: '',
        stderr: tooOld(oldNode.version),
      })
    })
  })

  describe.each(['setup', 'demo', 'test', 'pack:local'])('npm run %s on an old Node', (script) => {
    it('prints the same one line before anything is fetched or built, exit 1', (context) => {
      if (!oldNode || !npmBeside || !existsSync(npmBeside)) {
        return context.skip(`no Node older than ${neededMajor} with its npm on this machine to run it with`)
      }
      const result = spawnSync(oldNode.path, [npmBeside, 'run', '--silent', script], {
        cwd: root,
        encoding: 'utf8',
        env: visitorEnv(oldNode.path),
      })
      expect(result.status).toBe(1)
      expect(result.stdout).toBe('')
      // npm may add its own warnings about the user's npm config; the script adds exactly one line.
      const ours = result.stderr.split('\n').filter((line) => !line.startsWith('npm warn'))
      expect(ours.join('\n')).toBe(tooOld(oldNode.version))
    })
  })
})
