import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { fileStore } from '@strata-memory/store-file'
import { describe, expect, it } from 'vitest'
import { FIXTURE_THREAD, writeFixtureThread } from '../testing/fixture-thread'
import { runStrata } from '../testing/run-strata'
import { coloursWanted } from './output'

const terminal = Object.assign(new PassThrough(), { isTTY: true })
const pipe = new PassThrough()

describe('coloursWanted', () => {
  it('colours a terminal, never a pipe, whatever CI says', () => {
    expect(coloursWanted(terminal, {})).toBe(true)
    expect(coloursWanted(terminal, { TERM: 'dumb' })).toBe(false)
    expect(coloursWanted(pipe, {})).toBe(false)
    expect(coloursWanted(pipe, { CI: 'true' })).toBe(false)
    expect(coloursWanted(pipe, { CI: '1', GITHUB_ACTIONS: 'true' })).toBe(false)
  })

  it('takes NO_COLOR and FORCE_COLOR as the conventions say', () => {
    expect(coloursWanted(terminal, { NO_COLOR: '1' })).toBe(false)
    expect(coloursWanted(pipe, { FORCE_COLOR: '1' })).toBe(true)
    expect(coloursWanted(terminal, { FORCE_COLOR: '0' })).toBe(false)
    expect(coloursWanted(pipe, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true)
  })
})

it('the built CLI writes no escape codes to a pipe under CI=true', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'strata-colours-'))
  try {
    await writeFixtureThread(fileStore({ dir }))
    const run = await runStrata(['status', FIXTURE_THREAD, '--store', dir], {
      env: { CI: 'true', NO_COLOR: '' },
    })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Open scopes')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape byte is what is looked for
    expect(run.stdout + run.stderr).not.toMatch(/\u001b\[/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
