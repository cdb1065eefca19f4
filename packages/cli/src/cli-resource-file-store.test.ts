import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileStore } from '@strata-memory/store-file'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  FIXTURE_RESOURCE,
  FIXTURE_RESOURCE_THREADS,
  OTHER_RESOURCE_THREAD,
  writeFixtureResource,
} from './testing/fixture-resource'
import { runStrata, runStrataJson } from './testing/run-strata'

const dir = mkdtempSync(join(tmpdir(), 'strata-cli-resource-'))
const store = () => ['--store', dir]
beforeAll(async () => {
  await writeFixtureResource(fileStore({ dir }))
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe('strata resource and strata query --resource on the file store (the built binary)', {
  timeout: 60_000,
}, () => {
  it('resource lists the threads newest first, the working memory and the facts; --json the same as data', async () => {
    const text = await runStrata([...store(), 'resource', FIXTURE_RESOURCE])
    expect(text.code, text.stderr).toBe(0)
    const threadLines = text.stdout.split('\n').filter((line) => /^user-\d+\.chat-\d/.test(line))
    expect(threadLines.map((line) => line.split(/\s+/)[0])).toEqual([...FIXTURE_RESOURCE_THREADS].reverse())
    expect(text.stdout).toContain('  Name: Ana\n  Diet: vegetarian\n  City: Lyon')
    expect(text.stdout).not.toContain(OTHER_RESOURCE_THREAD)
    const { code, json } = await runStrataJson<{
      threads: { threadId: string }[]
      workingMemory: { version: number }
      facts: { sources: { threadId: string }[] }[]
    }>([...store(), 'resource', FIXTURE_RESOURCE])
    expect(code).toBe(0)
    expect(json.threads.map((row) => row.threadId)).toEqual([...FIXTURE_RESOURCE_THREADS].reverse())
    expect(json.workingMemory.version).toBe(2)
    expect(json.facts.length).toBeGreaterThan(0)
    expect(
      json.facts.flatMap((fact) => fact.sources).every((source) => source.threadId.startsWith('user-42.')),
    ).toBe(true)
  })

  it('query --resource ranks hits of the resource’s threads only, with thread, seq and snippet', async () => {
    const { code, json } = await runStrataJson<{
      hits: { threadId: string; seq: number; snippet: string; score: number }[]
    }>([...store(), 'query', '--resource', FIXTURE_RESOURCE, 'dinner', 'Saturday'])
    expect(code).toBe(0)
    expect(json.hits.length).toBeGreaterThan(0)
    expect(json.hits.every((hit) => hit.threadId.startsWith('user-42.'))).toBe(true)
    expect(json.hits.every((hit) => hit.seq > 0 && hit.snippet.length > 0)).toBe(true)
    const text = await runStrata([...store(), 'query', '--resource', FIXTURE_RESOURCE, 'dinner', 'Saturday'])
    expect(text.stdout).toMatch(
      /^\d+ hits for "dinner Saturday" in resource user-42\n#\s+score\s+thread\s+seq\s+kind\s+snippet/,
    )
  })

  it('an unknown resource and a query without --resource are one-line usage errors (exit 2)', async () => {
    const unknown = await runStrata([...store(), 'resource', 'user-99'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^strata: Resource 'user-99' not found/),
    ])
    const missing = await runStrata([...store(), 'query', 'dinner'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("required option '--resource <id>' not specified")
  })
})
