import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemory, type Item, openAppThread } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FIXTURE_THREAD, writeFixtureThread } from './testing/fixture-thread'
import { runStrata, runStrataJson } from './testing/run-strata'

let dir: string
const store = () => ['--store', dir]
const logOf = (threadId: string) => join(dir, 'agents', threadId, 'raw_traces.jsonl')

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'strata-cli-'))
  await writeFixtureThread(fileStore({ dir }))
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe('strata on the file store (the built binary)', { timeout: 60_000 }, () => {
  it('--timeout bounds each store call: a held lock gives up in time, saying how to allow longer', async () => {
    // An import into a thread whose folder lock a live process (this one) on this host holds: its
    // append waits for the lock.
    const exported = await runStrata([...store(), 'export', FIXTURE_THREAD, '--archive'])
    const file = join(dir, 'locked-export.jsonl')
    writeFileSync(file, exported.stdout)
    mkdirSync(join(dir, 'agents', 'locked-copy'), { recursive: true })
    const lock = join(dir, 'agents', 'locked-copy', '.lock')
    writeFileSync(
      lock,
      `${JSON.stringify({ pid: process.pid, hostname: hostname(), ts: Date.now(), token: 'held' })}\n`,
    )
    try {
      const started = Date.now()
      const waited = await runStrata([
        ...store(),
        '--timeout',
        '0.5',
        'import',
        file,
        '--thread',
        'locked-copy',
      ])
      expect(Date.now() - started).toBeLessThan(9_000)
      expect(waited.code).toBe(2)
      expect(waited.stderr).toMatch(
        /within 500 ms \(timeoutMs\).*\(STRATA_STORE_FAILED\) Run with --timeout <seconds>/,
      )
    } finally {
      rmSync(join(dir, 'agents', 'locked-copy'), { recursive: true, force: true })
      rmSync(file, { force: true })
    }
    for (const bad of ['0', '-3', 'soon', '']) {
      const refused = await runStrata([...store(), '--timeout', bad, 'threads'])
      expect(refused.code).toBe(2)
      expect(refused.stderr.trim()).toBe(
        `strata: Bad --timeout '${bad}': give a number of seconds greater than 0.`,
      )
    }
    expect((await runStrata([...store(), '--timeout', '30', 'verify', FIXTURE_THREAD])).code).toBe(0)
  })

  it('threads lists the thread with its counts, as a table and as JSON', async () => {
    const text = await runStrata([...store(), 'threads'])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^thread\s+items\s+active\s+archived\s+tokens\s+last write/)
    expect(text.stdout).toContain(FIXTURE_THREAD)
    const { json } = await runStrataJson<{
      threads: { threadId: string; items: number; active: number; archived: number; lastWrite: string }[]
    }>([...store(), 'threads'])
    const row = json.threads.find((thread) => thread.threadId === FIXTURE_THREAD)
    expect(row?.archived).toBeGreaterThan(0)
    expect(row?.items).toBe((row?.active ?? 0) + (row?.archived ?? 0))
    expect(row?.lastWrite).toMatch(/^2026-11-20T09:00:\d\dZ|^2026-11-20T09:00:\d\d\.\d{3}Z$/)
  })

  it('status shows the level, open scopes, summaries, facts, archived ranges and the last compaction', async () => {
    const text = await runStrata([...store(), 'status', FIXTURE_THREAD])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain('Level project')
    expect(text.stdout).toContain('Open scopes project: Garden')
    expect(text.stdout).toMatch(/episodic\s+1\s+\d+/)
    expect(text.stdout).toMatch(/Archived #1–\d+/)
    expect(text.stdout).toMatch(/Last compaction manual at .*: tokens \d+ → \d+/)
    expect(text.stderr).toContain('using the default memory options')
    expect(text.stderr).toContain("Not known without the app's config: levels, token budget, summarizer")
    const { json } = await runStrataJson<{
      level: string
      scopes: { level: string; title: string }[]
      compaction: { summaries: Record<string, { count: number }>; facts: number; last: { trigger: string } }
      archivedRanges: { fromSeq: number; toSeq: number }[]
      context: { tokens: number; savedTokens: number }
    }>([...store(), 'status', FIXTURE_THREAD])
    expect(json.level).toBe('project')
    expect(json.scopes.map((scope) => scope.title)).toEqual(['Garden'])
    expect(json.compaction.summaries.episodic?.count).toBe(1)
    expect(json.compaction.summaries.scope?.count).toBe(1)
    expect(json.compaction.facts).toBeGreaterThan(0)
    expect(json.compaction.last.trigger).toBe('manual')
    expect(json.archivedRanges[0]?.fromSeq).toBe(1)
    expect(json.context.savedTokens).toBeGreaterThan(0)
  })

  it('view shows the level view; --level task shows the closed task scope', async () => {
    const { json } = await runStrataJson<{ level: string; items: Item[] }>([
      ...store(),
      'view',
      FIXTURE_THREAD,
    ])
    expect(json.level).toBe('project')
    expect(json.items.map((item) => item.type)).toContain('transition')
    expect(json.items.every((item) => item.level === 'project')).toBe(true)
    const text = await runStrata([...store(), 'view', FIXTURE_THREAD])
    expect(text.stdout).toMatch(/#\d+ project\s+summary:scope\s+Three apple trees planted by the fence\./)
    // No task is open: the view shows the last closed one, its items read back from the archive.
    const task = await runStrataJson<{
      items: Item[]
      closedScope: { fromLevel: string; reason: string; range: { fromSeq: number; toSeq: number } }
    }>([...store(), 'view', FIXTURE_THREAD, '--level', 'task'])
    expect(task.json.closedScope).toMatchObject({ fromLevel: 'task', reason: 'task-complete' })
    expect(task.json.items.length).toBeGreaterThan(1)
    expect(task.json.items.every((item) => item.level === 'task')).toBe(true)
    const { fromSeq, toSeq } = task.json.closedScope.range
    expect(task.json.items.every((item) => item.seq >= fromSeq && item.seq <= toSeq)).toBe(true)
    const taskText = await runStrata([...store(), 'view', FIXTURE_THREAD, '--level', 'task'])
    expect(taskText.stdout).toMatch(/at task: no task scope open; the last one closed \(task-complete\)/)
    expect(taskText.stdout).toContain('Plant them now.')
    const bad = await runStrata([...store(), 'view', FIXTURE_THREAD, '--level', 'galaxy'])
    expect(bad.code).toBe(2)
    expect(bad.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^strata: Unknown level 'galaxy'/)])
  })

  it('context prints what the model is sent with its tokens, and a preview of another level changes nothing', async () => {
    const before = readFileSync(logOf(FIXTURE_THREAD))
    const text = await runStrata([...store(), 'context', FIXTURE_THREAD])
    expect(text.stdout).toContain('[MEMORY:EPISODIC]')
    expect(text.stdout).toContain('Now water them.')
    expect(text.stdout).toMatch(/\d+ messages, \d+ tokens at project; thread \d+ tokens, saved \d+/)
    const { json } = await runStrataJson<{
      messages: unknown[]
      stats: { level: string; contextTokens: number }
    }>([...store(), 'context', FIXTURE_THREAD, '--level', 'global'])
    expect(json.stats.level).toBe('global')
    expect(json.stats.contextTokens).toBeGreaterThan(0)
    expect(readFileSync(logOf(FIXTURE_THREAD))).toEqual(before)
  })

  it('export writes JSONL that import reads back into an identical thread, and Markdown', async () => {
    // An adapter's record in the thread's state (the Mastra thread: resource, title, metadata) travels too.
    const files = fileStore({ dir })
    const mastra = { threadId: 'ana/garden', resourceId: 'ana', title: 'Garden', metadata: { tag: 'x' } }
    await files.setState(FIXTURE_THREAD, { ...(await files.getState(FIXTURE_THREAD)), mastra })
    const exported = await runStrata([...store(), 'export', FIXTURE_THREAD, '--archive'])
    expect(exported.code).toBe(0)
    const lines = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines[0]).toMatchObject({ format: 'strata-thread', threadId: FIXTURE_THREAD, withArchive: true })
    expect(lines.some((line) => line.format === 'strata-content')).toBe(true)
    expect(lines.at(-1)).toMatchObject({ format: 'strata-state', state: { mastra } })
    const file = join(dir, 'export.jsonl')
    writeFileSync(file, exported.stdout)
    const imported = await runStrataJson<{ items: number; archived: number; content: number }>([
      ...store(),
      'import',
      file,
      '--thread',
      'copy-1',
    ])
    expect(imported.code).toBe(0)
    expect(imported.json.content).toBe(1)
    const again = await runStrata([...store(), 'export', 'copy-1', '--archive'])
    expect(again.stdout.split('\n').slice(1)).toEqual(exported.stdout.split('\n').slice(1))
    expect(await files.getState('copy-1')).toEqual(await files.getState(FIXTURE_THREAD))
    const status = await runStrataJson<{ level: string; items: { archived: number } }>([
      ...store(),
      'status',
      'copy-1',
    ])
    expect(status.json.level).toBe('project')
    expect(status.json.items.archived).toBe(imported.json.archived)
    const twice = await runStrata([...store(), 'import', file, '--thread', 'copy-1'])
    expect(twice.code).toBe(2)
    expect(twice.stderr).toMatch(/already has \d+ items/)

    const markdown = await runStrata([
      ...store(),
      'export',
      FIXTURE_THREAD,
      '--format',
      'markdown',
      '--archive',
    ])
    expect(markdown.stdout).toMatch(/^# Thread user-42\.chat-7/)
    expect(markdown.stdout).toMatch(/## #1 · global · user \(archived\)/)
  })

  it('compact --force compacts a thread and reports tokens before and after', async () => {
    const memory = createMemory({ store: fileStore({ dir }) })
    const thread = await memory.thread('to-compact')
    for (let turn = 1; turn <= 6; turn++) {
      await thread.append({
        role: 'user',
        content: `Question ${turn}: ${'what about the fence? '.repeat(20)}`,
      })
      await thread.append({
        role: 'assistant',
        content: `Answer ${turn}: ${'the fence is fine. '.repeat(20)}`,
      })
    }
    const statusTokens = async () =>
      (await runStrataJson<{ context: { tokens: number } }>([...store(), 'status', 'to-compact'])).json
        .context.tokens
    const before = await statusTokens()
    const { code, json } = await runStrataJson<{
      compacted: boolean
      contextTokens: { before: number; after: number }
      last: { tokensBefore: number; tokensAfter: number; itemsArchived: number }
    }>([...store(), 'compact', 'to-compact', '--force'])
    expect(code).toBe(0)
    expect(json.compacted).toBe(true)
    expect(json.last.itemsArchived).toBeGreaterThan(0)
    // The figures are the ones `strata status` shows, before and after.
    expect(json.contextTokens).toEqual({ before, after: await statusTokens() })
    expect(json.contextTokens.after).toBeLessThan(json.contextTokens.before)
  })

  it('bad store URLs, unknown threads and thread ids with a path are one-line errors, exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['--store', 'http://localhost/memory', 'threads'],
        /^strata: Bad store 'http:\/\/localhost\/memory': .*redis:\/\//,
      ],
      [['--store', 'redis://', 'threads'], /^strata: Bad store URL 'redis:\/\/'/],
      [['--store', join(dir, 'missing'), 'threads'], /^strata: No memory folder at /],
      [
        [...store(), 'status', 'no-such-thread'],
        /^strata: Thread 'no-such-thread' not found in .*strata threads/,
      ],
      // An app's own id (a path included) is mapped as the adapters map it, never used as a path.
      [
        [...store(), 'view', '../../etc/passwd'],
        /^strata: Thread '\.\.\/\.\.\/etc\/passwd \(stored as _\.\.\._2F\.\._2Fetc_2Fpasswd\)' not found/,
      ],
      [[...store(), 'verify', 'a/b'], /^strata: Thread 'a\/b \(stored as _\.a_2Fb\)' not found/],
      [[...store(), 'status', ''], /^strata: Bad thread id '': give a non-empty thread id/],
      [[...store(), 'verify', 'no-such-thread'], /^strata: Thread 'no-such-thread' not found/],
    ]
    for (const [args, message] of cases) {
      const run = await runStrata(args)
      expect(run.code, args.join(' ')).toBe(2)
      expect(run.stderr.trim().split('\n'), args.join(' ')).toEqual([expect.stringMatching(message)])
    }
  })

  it("names a thread by the app's own id, with the store's id beside it", async () => {
    const memory = createMemory({ store: fileStore({ dir }) })
    const thread = await openAppThread(memory, 'user:42/chat:7')
    await thread.append({ role: 'user', content: 'Hello from the app' })
    await memory.close()
    const shown = 'user:42/chat:7 (stored as _.user_3A42_2Fchat_3A7)'
    expect((await runStrata([...store(), 'status', 'user:42/chat:7'])).stdout).toContain(`Thread ${shown}`)
    expect((await runStrata([...store(), 'view', 'user:42/chat:7'])).stdout).toContain(`View of ${shown}`)
    expect((await runStrata([...store(), 'verify', 'user:42/chat:7'])).stdout).toContain(
      `✓ ${shown}: 1 items`,
    )
    expect((await runStrata([...store(), 'threads'])).stdout).toMatch(/^user:42\/chat:7\s+1\s+1\s+0/m)
  })

  it('takes the store from STRATA_MEMORY_DIR and the ladder from a strata.config.mjs', async () => {
    const memory = createMemory({ store: fileStore({ dir }), levels: ['org', 'case'] })
    const thread = await memory.thread('custom-ladder')
    await thread.enter('case', { title: 'Case 9' })
    await thread.append({ role: 'user', content: 'Open case 9.' })
    const cwd = mkdtempSync(join(tmpdir(), 'strata-cli-config-'))
    writeFileSync(
      join(cwd, 'strata.config.mjs'),
      "export default { levels: ['org', 'case'], system: 'You are a clerk.' }\n",
    )
    const run = await runStrataJson<{ messages: { role: string; content: { text: string }[] }[] }>(
      ['context', 'custom-ladder'],
      {
        cwd,
        env: { STRATA_MEMORY_DIR: dir },
      },
    )
    expect(run.code).toBe(0)
    expect(run.json.messages[0]?.content[0]?.text).toBe('You are a clerk.')
    expect(run.stderr).toBe('')
    const typed = mkdtempSync(join(tmpdir(), 'strata-cli-config-ts-'))
    writeFileSync(
      join(typed, 'strata.config.ts'),
      "const config: { levels: string[]; system: string } = { levels: ['org', 'case'], system: 'Typed clerk.' }\nexport default config\n",
    )
    const fromTs = await runStrataJson<{ messages: { content: { text: string }[] }[] }>(
      ['context', 'custom-ladder'],
      {
        cwd: typed,
        env: { STRATA_MEMORY_DIR: dir },
      },
    )
    expect(fromTs.json.messages[0]?.content[0]?.text).toBe('Typed clerk.')
    rmSync(typed, { recursive: true, force: true })
    const levels = await runStrataJson<{ level: string }>(
      ['view', 'custom-ladder', '--levels', 'org,case', '--level', 'case'],
      {
        env: { STRATA_MEMORY_DIR: dir },
      },
    )
    expect(levels.json.level).toBe('case')
    rmSync(cwd, { recursive: true, force: true })
  })
})

describe('strata verify on the file store', { timeout: 60_000 }, () => {
  it('passes a clean thread with exit 0', async () => {
    const run = await runStrata([...store(), 'verify', FIXTURE_THREAD])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/✓ user-42\.chat-7: \d+ items, no problem/)
  })

  it('finds a torn line without touching the file, and --repair moves it aside', async () => {
    await writeFixtureThread(fileStore({ dir }), 'torn')
    const path = logOf('torn')
    appendFileSync(path, '{"seq":999,"id":"itm_x","ts":1,"lev')
    const before = readFileSync(path)
    const { code, json } = await runStrataJson<{
      ok: boolean
      threads: { problems: { kind: string; repair: string }[] }[]
    }>([...store(), 'verify', 'torn'])
    expect(code).toBe(1)
    expect(json.ok).toBe(false)
    expect(json.threads[0]?.problems.map((problem) => problem.kind)).toEqual(['torn-tail'])
    expect(json.threads[0]?.problems[0]?.repair).toContain('--repair')
    expect(readFileSync(path)).toEqual(before)
    // export reads the files itself too: the torn tail is left out, and left where it is.
    const exported = await runStrata([...store(), 'export', 'torn'])
    expect(exported.code).toBe(0)
    expect(exported.stdout).not.toContain('itm_x')
    expect(exported.stderr).toContain('left out a torn tail')
    expect(readFileSync(path)).toEqual(before)
    const text = await runStrata([...store(), 'verify', 'torn'])
    expect(text.stdout).toMatch(/✗ torn: 1 problem/)
    expect(text.stdout).toMatch(/repair: .*strata verify --repair/)
    const repaired = await runStrata([...store(), 'verify', 'torn', '--repair'])
    expect(repaired.code).toBe(0)
    expect(readFileSync(`${path}.corrupt`, 'utf8')).toContain('itm_x')
  })

  it('finds a seq gap across the active log and the archive', async () => {
    await writeFixtureThread(fileStore({ dir }), 'gap')
    const lines = readFileSync(logOf('gap'), 'utf8').trimEnd().split('\n')
    const factLine = lines.findIndex((line) => line.includes('"type":"fact"'))
    const removed = JSON.parse(lines[factLine] as string) as { seq: number }
    writeFileSync(logOf('gap'), `${lines.filter((_line, index) => index !== factLine).join('\n')}\n`)
    const { code, json } = await runStrataJson<{
      threads: { problems: { kind: string; seq: number; message: string }[] }[]
    }>([...store(), 'verify', 'gap'])
    expect(code).toBe(1)
    expect(json.threads[0]?.problems).toEqual([
      expect.objectContaining({
        kind: 'seq-gap',
        seq: removed.seq,
        message: `seq ${removed.seq} is in neither the active log nor the archive.`,
      }),
    ])
  })

  it('finds an orphaned tool call, a corrupt middle line and missing content; --all covers every thread', async () => {
    const memory = createMemory({ store: fileStore({ dir }) })
    const thread = await memory.thread('orphan')
    await thread.append({ role: 'user', content: 'Look up order 7.' })
    await thread.append({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'call-lost', toolName: 'lookup_order', input: { id: 7 } }],
    })
    await thread.append({ role: 'user', content: 'Hello?' })
    await thread.append({ role: 'assistant', content: 'Here.' })
    const orphan = await runStrataJson<{ threads: { problems: { kind: string; message: string }[] }[] }>([
      ...store(),
      'verify',
      'orphan',
    ])
    expect(orphan.code).toBe(1)
    expect(orphan.json.threads[0]?.problems).toEqual([
      expect.objectContaining({
        kind: 'orphan-tool-call',
        message: 'tool call call-lost (lookup_order) at seq 2 has no result.',
      }),
    ])

    await writeFixtureThread(fileStore({ dir }), 'damaged')
    const lines = readFileSync(logOf('damaged'), 'utf8').trimEnd().split('\n')
    lines[1] = '{"seq": oops'
    writeFileSync(logOf('damaged'), `${lines.join('\n')}\n`)
    rmSync(join(dir, 'agents', 'damaged', 'content'), { recursive: true, force: true })
    const damaged = await runStrataJson<{ threads: { problems: { kind: string; line?: number }[] }[] }>([
      ...store(),
      'verify',
      'damaged',
    ])
    const kinds = damaged.json.threads[0]?.problems.map((problem) => problem.kind)
    expect(kinds).toContain('corrupt-line')
    expect(kinds).toContain('missing-content')
    expect(kinds).toContain('seq-gap')

    const all = await runStrataJson<{ threads: { threadId: string; problems: unknown[] }[] }>([
      ...store(),
      'verify',
      '--all',
    ])
    expect(all.code).toBe(1)
    const failing = all.json.threads
      .filter((result) => result.problems.length > 0)
      .map((result) => result.threadId)
    expect(failing).toEqual(expect.arrayContaining(['orphan', 'damaged', 'gap']))
    expect(failing).not.toContain(FIXTURE_THREAD)
  })
})

describe('strata on a file store that holds resources', { timeout: 60_000 }, () => {
  it('lists and verifies threads only: resource folders, bindings and vectors are no threads', async () => {
    const resourcesDir = mkdtempSync(join(tmpdir(), 'strata-cli-resources-'))
    try {
      const files = fileStore({ dir: resourcesDir })
      await writeFixtureThread(files, 'bound')
      await files.setThreadResource('bound', 'user-42', { expected: undefined })
      await files.touchResourceThread('user-42', 'bound', Date.now())
      await files.setWorkingMemory('user-42', { name: 'Zoë' }, { expectedVersion: 0 })
      await files.putDocument('user-42', ['memories'], 'food', { likes: 'tea' })
      await files.putVectors('bound', [{ id: 'item:1', model: 'm', vector: new Float32Array([1, 2]) }])
      const threads = await runStrataJson<{ threads: { threadId: string }[] }>([
        '--store',
        resourcesDir,
        'threads',
      ])
      expect(threads.json.threads.map((thread) => thread.threadId)).toEqual(['bound'])
      const verified = await runStrataJson<{
        ok: boolean
        threads: { threadId: string; problems: unknown[] }[]
      }>(['--store', resourcesDir, 'verify', '--all'])
      expect(verified.code).toBe(0)
      expect(verified.json.threads).toEqual([expect.objectContaining({ threadId: 'bound', problems: [] })])
    } finally {
      rmSync(resourcesDir, { recursive: true, force: true })
    }
  })
})
