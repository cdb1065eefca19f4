import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { runProcess } from './testing/run-worker'

/*
 * Issue 31: creating a thread on a read-only file system reported `ENOENT … mkdir`. A real read-only
 * file system: a tmpfs mounted read-only (or remounted so) in a user and mount namespace of its own
 * (`unshare -rm`), where the child process runs the built store. Where unprivileged namespaces are
 * not allowed, the test is skipped (and says so).
 */

// The child imports the built package (`@strata-memory/store-file` → dist): build it first.
const WORKER = fileURLToPath(new URL('./testing/read-only-worker.mjs', import.meta.url))
const mountPoint = mkdtempSync(join(tmpdir(), 'strata-ro-'))
afterAll(() => rmSync(mountPoint, { recursive: true, force: true }))

const namespaces =
  spawnSync('unshare', ['-rm', 'sh', '-c', 'mount -t tmpfs -o ro tmpfs "$1"', 'sh', mountPoint]).status === 0

interface Outcome {
  name: string
  ok?: true
  code?: string
  message?: string
  details?: Record<string, unknown>
}

/** Runs `script` (sh, with $1 = the mount point) in a namespace of its own; returns the worker's lines. */
async function inNamespace(script: string): Promise<Outcome[]> {
  const stdout = await runProcess('unshare', [
    '-rm',
    'sh',
    '-c',
    script,
    'sh',
    mountPoint,
    process.execPath,
    WORKER,
  ])
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Outcome)
}

function expectReadOnly(outcome: Outcome | undefined): void {
  expect(outcome?.code, JSON.stringify(outcome)).toBe('STRATA_STORE_FAILED')
  expect(outcome?.details).toMatchObject({ errorCode: 'EROFS', reason: 'read-only' })
  expect(outcome?.message).toContain('read-only file system (EROFS)')
  expect(outcome?.message).not.toContain('ENOENT')
  expect(outcome?.message).not.toContain('mkdir')
}

describe.skipIf(!namespaces)('a read-only file system (tmpfs in a mount namespace)', () => {
  it('creating a thread reports the read-only cause, not ENOENT … mkdir', async () => {
    const outcomes = await inNamespace('mount -t tmpfs -o ro tmpfs "$1" && "$2" "$3" "$1/memory"')
    const byName = new Map(outcomes.map((outcome) => [outcome.name, outcome]))
    expectReadOnly(byName.get('append a'))
    expectReadOnly(byName.get('setState'))
  }, 30_000)

  it('writing a thread after the file system was remounted read-only reports it too', async () => {
    const outcomes = await inNamespace(
      'mount -t tmpfs tmpfs "$1" && "$2" "$3" "$1/memory" && mount -o remount,ro "$1" && "$2" "$3" "$1/memory"',
    )
    expect(outcomes.slice(0, 3).every((outcome) => outcome.ok === true)).toBe(true)
    const [resent, grown, state] = outcomes.slice(3)
    // The first append again is recognised from what the files hold (read without the lock):
    // nothing to write. The second needs the thread's lock, which cannot be created.
    expect(resent).toMatchObject({ name: 'append a', ok: true })
    expectReadOnly(grown)
    expectReadOnly(state)
  }, 30_000)
})
