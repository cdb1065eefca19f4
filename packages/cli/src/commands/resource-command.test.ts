import { inMemoryStore, type MessageItem, type StrataStore } from '@strata-memory/core'
import { beforeAll, describe, expect, it } from 'vitest'
import { CliError } from '../cli/cli-error'
import {
  FIXTURE_RESOURCE,
  FIXTURE_RESOURCE_THREADS,
  OTHER_RESOURCE_THREAD,
  writeFixtureResource,
} from '../testing/fixture-resource'
import { InMemoryCommandContext } from '../testing/in-memory-context'
import { queryCommand } from './query-command'
import { resourceCommand } from './resource-command'

interface ResourceJson {
  resourceId: string
  threads: { threadId: string; items: number; lastAppend: string }[]
  cursor?: string
  workingMemory: { value: string; version: number; updatedAt: number } | null
  facts: { text: string; sources: { threadId: string; seq: number }[] }[]
}

interface QueryJson {
  resourceId: string
  query: string
  hits: { threadId: string; seq: number; kind: string; snippet: string; score: number }[]
}

let store: StrataStore
const newestFirst = [...FIXTURE_RESOURCE_THREADS].reverse()

beforeAll(async () => {
  store = inMemoryStore()
  await writeFixtureResource(store)
})

async function run(
  action: (context: InMemoryCommandContext) => Promise<number>,
  { json = false }: { json?: boolean } = {},
) {
  const context = new InMemoryCommandContext(store, { json })
  const code = await action(context)
  return { code, stdout: context.stdout.text, stderr: context.stderr.text }
}

async function runJson<T>(action: (context: InMemoryCommandContext) => Promise<number>): Promise<T> {
  return JSON.parse((await run(action, { json: true })).stdout) as T
}

describe('strata resource (in-process, on the in-memory store)', () => {
  it('shows the threads newest first, the working memory and the facts of the resource only', async () => {
    const { code, stdout } = await run((context) => resourceCommand(context, FIXTURE_RESOURCE, {}))
    expect(code).toBe(0)
    expect(stdout).toContain(`Resource ${FIXTURE_RESOURCE}`)
    const threadLines = stdout.split('\n').filter((line) => /^user-\d+\.chat-\d/.test(line))
    expect(threadLines.map((line) => line.split(/\s+/)[0])).toEqual(newestFirst)
    expect(threadLines.every((line) => /^\S+\s+8\s+\d{4}-\d\d-\d\dT/.test(line))).toBe(true)
    expect(stdout).toMatch(/Working memory version 2, written \d{4}-/)
    expect(stdout).toContain('  Name: Ana\n  Diet: vegetarian\n  City: Lyon')
    expect(stdout).toMatch(/Facts [1-9]/)
    expect(stdout).toMatch(/ {2}- .*Ana.* \(user-42\.chat-1#\d+\)/)
    expect(stdout).not.toContain(OTHER_RESOURCE_THREAD)
    expect(stdout).not.toContain('Bruno')
  })

  it('--json: the same as data, every fact pointing at a fact item of one of its threads', async () => {
    const json = await runJson<ResourceJson>((context) => resourceCommand(context, FIXTURE_RESOURCE, {}))
    expect(json.resourceId).toBe(FIXTURE_RESOURCE)
    expect(json.threads.map((row) => row.threadId)).toEqual(newestFirst)
    expect(json.threads.map((row) => row.items)).toEqual([8, 8, 8])
    const times = json.threads.map((row) => Date.parse(row.lastAppend))
    expect(times).toEqual([...times].sort((left, right) => right - left))
    expect(json.cursor).toBeUndefined()
    expect(json.workingMemory).toMatchObject({ value: 'Name: Ana\nDiet: vegetarian\nCity: Lyon', version: 2 })
    expect(json.facts.length).toBeGreaterThan(0)
    for (const fact of json.facts) {
      for (const { threadId, seq } of fact.sources) {
        expect(FIXTURE_RESOURCE_THREADS).toContain(threadId)
        const [item] = [
          ...(await store.read(threadId, { fromSeq: seq, toSeq: seq })),
          ...(await store.readArchive(threadId, { fromSeq: seq, toSeq: seq })),
        ]
        expect(item).toMatchObject({ type: 'fact', text: fact.text })
      }
    }
  })

  it('pages the threads with --limit and --cursor, saying how to get the next page', async () => {
    const first = await run((context) => resourceCommand(context, FIXTURE_RESOURCE, { limit: '2' }))
    expect(first.stdout).toContain('Threads 2+, newest first')
    const next = first.stderr.match(/More threads: strata resource user-42 --cursor (\S+)/)
    expect(next, first.stderr).not.toBeNull()
    const page1 = await runJson<ResourceJson>((context) =>
      resourceCommand(context, FIXTURE_RESOURCE, { limit: '2' }),
    )
    expect(page1.threads.map((row) => row.threadId)).toEqual(newestFirst.slice(0, 2))
    expect(page1.cursor).toBe(next![1])
    const page2 = await runJson<ResourceJson>((context) =>
      resourceCommand(context, FIXTURE_RESOURCE, { limit: '2', cursor: page1.cursor! }),
    )
    expect(page2.threads.map((row) => row.threadId)).toEqual(newestFirst.slice(2))
    expect(page2.cursor).toBeUndefined()
  })

  it('an unknown resource, a malformed id and a bad --limit are one-line usage errors', async () => {
    const refusal = async (action: (context: InMemoryCommandContext) => Promise<number>) => {
      const error = await run(action).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(CliError)
      return (error as CliError).message
    }
    expect(await refusal((context) => resourceCommand(context, 'user-99', {}))).toMatch(
      /^Resource 'user-99' not found in .*: it has no threads, working memory or documents/,
    )
    expect(await refusal((context) => resourceCommand(context, '../user-42', {}))).toMatch(
      /^Bad resource id '\.\.\/user-42'/,
    )
    expect(await refusal((context) => resourceCommand(context, FIXTURE_RESOURCE, { limit: '0' }))).toBe(
      "--limit must be a whole number from 1 to 1000, not '0'.",
    )
  })
})

describe('strata query --resource (in-process, on the in-memory store)', () => {
  it('ranks hits across the resource’s threads, best first, each with its thread, seq and a snippet of that item', async () => {
    const json = await runJson<QueryJson>((context) =>
      queryCommand(context, ['vegetarian', 'dinner', 'Saturday'], { resource: FIXTURE_RESOURCE }),
    )
    expect(json.query).toBe('vegetarian dinner Saturday')
    expect(json.hits.length).toBeGreaterThan(2)
    const scores = json.hits.map((hit) => hit.score)
    expect(scores).toEqual([...scores].sort((left, right) => right - left))
    // Another user's thread says "steak dinner on Saturday": it never answers for user-42.
    expect(json.hits.every((hit) => FIXTURE_RESOURCE_THREADS.includes(hit.threadId as never))).toBe(true)
    expect(new Set(json.hits.map((hit) => hit.threadId))).toEqual(
      new Set(['user-42.chat-1', 'user-42.chat-2']),
    )
    for (const hit of json.hits.filter((hit) => hit.kind === 'item')) {
      const [item] = [
        ...(await store.read(hit.threadId, { fromSeq: hit.seq, toSeq: hit.seq })),
        ...(await store.readArchive(hit.threadId, { fromSeq: hit.seq, toSeq: hit.seq })),
      ]
      expect(item, `${hit.threadId}#${hit.seq}`).toBeDefined()
      if (item!.type === 'message') {
        const text = (item as MessageItem).content
          .map((part) => (part.type === 'text' ? part.text : ''))
          .join(' ')
        expect(text).toContain(hit.snippet.replace(/…$/, '').slice(0, 20))
      }
    }

    const { code, stdout } = await run((context) =>
      queryCommand(context, ['vegetarian', 'dinner', 'Saturday'], { resource: FIXTURE_RESOURCE }),
    )
    expect(code).toBe(0)
    expect(stdout).toMatch(
      /^\d+ hits for "vegetarian dinner Saturday" in resource user-42\n#\s+score\s+thread\s+seq\s+kind\s+snippet/,
    )
    const first = json.hits[0]!
    expect(stdout).toMatch(
      new RegExp(
        `\\n1\\s+${first.score.toFixed(2)}\\s+${first.threadId.replace('.', '\\.')}\\s+${first.seq}\\s+${first.kind}\\s+`,
      ),
    )
  })

  it('--threads keeps to the named threads, --limit cuts the list, and words nobody wrote give no hits', async () => {
    const only = await runJson<QueryJson>((context) =>
      queryCommand(context, ['Lyon'], { resource: FIXTURE_RESOURCE, threads: 'user-42.chat-3' }),
    )
    expect(only.hits.length).toBeGreaterThan(0)
    expect(only.hits.every((hit) => hit.threadId === 'user-42.chat-3')).toBe(true)
    // A thread of another resource named in --threads is not searched.
    const other = await runJson<QueryJson>((context) =>
      queryCommand(context, ['steak'], {
        resource: FIXTURE_RESOURCE,
        threads: `${OTHER_RESOURCE_THREAD},user-42.chat-1`,
      }),
    )
    expect(other.hits).toEqual([])
    const one = await runJson<QueryJson>((context) =>
      queryCommand(context, ['Lyon'], { resource: FIXTURE_RESOURCE, limit: '1' }),
    )
    expect(one.hits).toHaveLength(1)
    const none = await run((context) => queryCommand(context, ['zeppelin'], { resource: FIXTURE_RESOURCE }))
    expect(none.stdout).toBe(
      '0 hits for "zeppelin" in resource user-42\nNothing in its threads holds those words.\n',
    )
  })

  it('no words, a bad --limit or a bad thread id are one-line usage errors', async () => {
    const refusal = async (action: (context: InMemoryCommandContext) => Promise<number>) =>
      ((await run(action).catch((caught: unknown) => caught)) as CliError).message
    expect(await refusal((context) => queryCommand(context, [' '], { resource: FIXTURE_RESOURCE }))).toMatch(
      /^Say what to look for/,
    )
    expect(
      await refusal((context) => queryCommand(context, ['x'], { resource: FIXTURE_RESOURCE, limit: '101' })),
    ).toBe("--limit must be a whole number from 1 to 100, not '101'.")
    expect(
      await refusal((context) =>
        queryCommand(context, ['x'], { resource: FIXTURE_RESOURCE, threads: 'a/b' }),
      ),
    ).toMatch(/^Bad thread id 'a\/b'/)
  })
})
