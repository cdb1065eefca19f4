import { type ChildProcess, spawn } from 'node:child_process'
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { fileStore } from '@strata-memory/store-file'
import { afterAll, describe, expect, it } from 'vitest'
import { runStrataJson } from '../testing/run-strata'

// The child imports the built store (`@strata-memory/store-file` → dist); the CLI runs from dist too.
const WORKER = fileURLToPath(new URL('./testing/archive-worker.mjs', import.meta.url))
const THREAD = 'crashed'
const TRIALS = 8
const dir = mkdtempSync(join(tmpdir(), 'strata-verify-crash-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs the worker and SIGKILLs it `delayMs` into one of its archives; resolves with what it acknowledged. */
function killMidArchive(delayMs: number): Promise<Map<number, string>> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [WORKER, dir, THREAD], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const acknowledged = new Map<number, string>()
    let buffered = ''
    let stderr = ''
    let archives = 0
    let timer: NodeJS.Timeout | undefined
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      for (const line of lines) {
        // The second archive of this run: the archive already holds parts, the index grows.
        if (line === 'phase archive' && ++archives === 2)
          timer = setTimeout(() => child.kill('SIGKILL'), delayMs)
        if (!line.startsWith('ack ')) continue
        for (const pair of line.slice(4).split(' ')) {
          const [seq, id] = pair.split(':')
          acknowledged.set(Number(seq), id!)
        }
      }
    })
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (signal === 'SIGKILL') resolve(acknowledged)
      else reject(new Error(`worker ended with ${code ?? signal} before it was killed: ${stderr}`))
    })
  })
}

interface Verified {
  ok: boolean
  repaired?: { kind: string }[]
  threads: { items: number; problems: { kind: string; repairable: boolean; message: string }[] }[]
}

async function expectEveryItemOnce(acknowledged: Map<number, string>): Promise<void> {
  const store = fileStore({ dir, onEvent: () => undefined })
  const bySeq = new Map<number, string>()
  for (const item of [...(await store.readArchive(THREAD)), ...(await store.read(THREAD))]) {
    expect(bySeq.has(item.seq), `seq ${item.seq} twice`).toBe(false)
    bySeq.set(item.seq, item.id)
  }
  for (const [seq, id] of acknowledged) expect(bySeq.get(seq), `acknowledged seq ${seq}`).toBe(id)
}

describe('strata verify --repair after kill -9 in the middle of archives (the built binary)', () => {
  it(`mends what ${TRIALS} kills mid-archive leave, and no item is lost or doubled`, async () => {
    const acknowledged = new Map<number, string>()
    const found: string[] = []
    for (let trial = 0; trial < TRIALS; trial++) {
      for (const [seq, id] of await killMidArchive(Math.random() * 12)) acknowledged.set(seq, id)
      const verified = await runStrataJson<Verified>(['--store', dir, 'verify', THREAD])
      const problems = verified.json.threads[0]!.problems
      found.push(...problems.map((problem) => problem.kind))
      // What a kill leaves is always repairable: nothing torn beyond repair, no gap.
      expect(problems.filter((problem) => !problem.repairable)).toEqual([])
      const repaired = await runStrataJson<Verified>(['--store', dir, 'verify', THREAD, '--repair'])
      expect(repaired.code, JSON.stringify(repaired.json)).toBe(0)
      expect(repaired.json.threads[0]!.problems).toEqual([])
      await expectEveryItemOnce(acknowledged)
    }
    console.info(`verify after ${TRIALS} kills mid-archive found: ${JSON.stringify(found)}`)

    // The two states a kill can leave, planted for certain: data past the index (killed before the
    // commit), and an archive committed before the active log was rewritten (items in both).
    const folder = join(dir, 'agents', THREAD)
    const store = fileStore({ dir })
    const active = await store.read(THREAD)
    const oldActive = readFileSync(join(folder, 'raw_traces.jsonl'))
    await store.archive(THREAD, { seqs: [active[1]!.seq] })
    writeFileSync(join(folder, 'raw_traces.jsonl'), oldActive)
    appendFileSync(
      join(folder, 'archive', '000001.jsonl'),
      `${JSON.stringify({ seq: active[0]!.seq, id: 'x' })}\n`,
    )
    const verified = await runStrataJson<Verified>(['--store', dir, 'verify', THREAD])
    expect(verified.code).toBe(1)
    expect(verified.json.threads[0]!.problems.map((problem) => problem.kind).sort()).toEqual([
      'archive-pending',
      'torn-tail',
    ])
    const repaired = await runStrataJson<Verified>(['--store', dir, 'verify', THREAD, '--repair'])
    expect(repaired.code).toBe(0)
    expect(repaired.json.repaired?.map((problem) => problem.kind).sort()).toEqual([
      'archive-pending',
      'torn-tail',
    ])
    const again = await runStrataJson<Verified>(['--store', dir, 'verify', THREAD])
    expect(again.code).toBe(0)
    await expectEveryItemOnce(acknowledged)
  }, 180_000)
})
