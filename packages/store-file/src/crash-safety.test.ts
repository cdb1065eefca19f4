import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { appendFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { fileStore } from './file-store'
import type { FileStoreEvent } from './file-store-options'

// The children import the built package (`@strata-memory/store-file` → dist): build it first.
const WORKER = fileURLToPath(new URL('./testing/crash-worker.mjs', import.meta.url))
const TRIALS = 50
const THREAD = 'crash-thread'

/** What the child was doing when it was killed: inside `append`, inside `archive`, or between writes. */
type Phase = 'append' | 'archive' | 'idle'

interface Trial {
  /** seq → id of every append the child saw acknowledged. */
  acknowledged: Map<number, string>
  /** Repairs the child reported (`lock-recovered`, `torn-tail-moved`, …). */
  events: string[]
  /** The last phase the child announced before the kill (its stdout pipe is written synchronously). */
  phase: Phase
}

/**
 * Starts a worker and SIGKILLs it `delayMs` after it prints `trigger`: `ready` (a random point among its
 * appends), `phase append` (a point inside its first append), or `phase archive` (a random point inside
 * its first archive, which takes a few ms:
 * waiting for it makes sure the archive trials really cut archives short, not only the appends
 * between them).
 */
function runAndKill(
  dir: string,
  mode: 'append' | 'archive',
  trigger: 'ready' | 'phase append' | 'phase archive',
  delayMs: number,
): Promise<Trial> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [WORKER, dir, THREAD, mode], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const acknowledged = new Map<number, string>()
    const events: string[] = []
    let phase: Phase = 'idle'
    let buffered = ''
    let stderr = ''
    let timer: NodeJS.Timeout | undefined
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      for (const line of lines) {
        if (line === trigger && timer === undefined) timer = setTimeout(() => child.kill('SIGKILL'), delayMs)
        if (line.startsWith('event ')) events.push(line.slice(6))
        if (line.startsWith('phase ')) phase = line.slice(6) as Phase
        if (!line.startsWith('ack ')) continue
        // Acknowledged: the append is over, whatever the child does next.
        phase = 'idle'
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
    // 'close' comes after the child was reaped: its pid is gone, so its lock is recognisably stale.
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (signal === 'SIGKILL') resolve({ acknowledged, events, phase })
      else reject(new Error(`worker ended with ${code ?? signal} before it was killed: ${stderr}`))
    })
  })
}

/**
 * What a power cut in the middle of a write leaves: a prefix of an unacknowledged three-item batch.
 * (A SIGKILL alone rarely tears a line: the kernel finishes a write to a regular file.)
 */
async function tearTail(path: string, trial: number): Promise<void> {
  const lines = [1, 2, 3].map((index) =>
    JSON.stringify({ id: `torn-${trial}-${index}`, type: 'message', seq: 1e9 + index, batch_end: 1e9 + 3 }),
  )
  const batch = `${lines.join('\n')}\n`
  await appendFile(path, batch.slice(0, 1 + Math.floor(Math.random() * (batch.length - 2))))
}

/** Every line of a log file parses, and the file ends with a newline. */
async function expectParsable(path: string): Promise<number> {
  if (!existsSync(path)) return 0
  const text = await readFile(path, 'utf8')
  if (text === '') return 0
  expect(text.endsWith('\n')).toBe(true)
  const lines = text.slice(0, -1).split('\n')
  for (const line of lines) expect(() => JSON.parse(line)).not.toThrow()
  return lines.length
}

/**
 * The archive's committed lines: every part its index names (a torn index tail left out), each a run
 * of whole lines that parse, with the seqs the index says. Bytes past the last part (an archive killed
 * before its commit) are not the archive's; the next write holding the lock cuts them off.
 */
async function archivedLineCount(threadDirectory: string): Promise<number> {
  const indexPath = join(threadDirectory, 'archive', 'index.jsonl')
  if (!existsSync(indexPath)) return 0
  const text = await readFile(indexPath, 'utf8')
  const entries = text
    .split('\n')
    .slice(0, -1)
    .flatMap((line) => {
      try {
        return [
          JSON.parse(line) as {
            file: string
            offset: number
            bytes: number
            count: number
            from: number
            to: number
            rest: number
          },
        ]
      } catch {
        return []
      }
    })
  // Only whole archive calls count: a call's parts end with rest 0.
  while (entries.length > 0 && entries.at(-1)!.rest !== 0) entries.pop()
  let count = 0
  for (const entry of entries) {
    const data = await readFile(join(threadDirectory, entry.file))
    const lines = data
      .subarray(entry.offset, entry.offset + entry.bytes)
      .toString('utf8')
      .split('\n')
    expect(lines.pop()).toBe('')
    const seqs = lines.map((line) => (JSON.parse(line) as { seq: number }).seq)
    expect(seqs).toHaveLength(entry.count)
    expect([seqs[0], seqs.at(-1)]).toEqual([entry.from, entry.to])
    count += entry.count
  }
  return count
}

describe('crash safety', () => {
  it(`keeps every acknowledged item over ${TRIALS} SIGKILLs during appends and archives`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-crash-'))
    const acknowledged = new Map<number, string>()
    const events: FileStoreEvent[] = []
    const childEvents: string[] = []
    const killedDuring: Record<Phase, number> = { append: 0, archive: 0, idle: 0 }
    const threadDirectory = join(dir, 'agents', THREAD)
    try {
      for (let trial = 0; trial < TRIALS; trial += 1) {
        // Even trials: appends only, killed anywhere in the first 40 ms, or (every other one) up to 2 ms
        // into an append, so enough kills cut appends short on a loaded machine too. Odd trials: appends
        // and archives, killed up to 6 ms into an archive (one takes about 4 ms on a disk with fsync).
        const result =
          trial % 4 === 0
            ? await runAndKill(dir, 'append', 'ready', Math.floor(Math.random() * 40))
            : trial % 4 === 2
              ? await runAndKill(dir, 'append', 'phase append', Math.random() * 2)
              : await runAndKill(dir, 'archive', 'phase archive', Math.random() * 6)
        for (const [seq, id] of result.acknowledged) acknowledged.set(seq, id)
        childEvents.push(...result.events)
        killedDuring[result.phase] += 1
        if (trial % 5 === 4) await tearTail(join(threadDirectory, 'raw_traces.jsonl'), trial)

        // A fresh store, as after a restart: opening must succeed and repair what the crash left.
        const store = fileStore({ dir, onEvent: (event) => events.push(event) })
        const active = await store.read(THREAD)
        const archived = await store.readArchive(THREAD)
        const bySeq = new Map<number, string>()
        for (const item of [...active, ...archived]) {
          expect(bySeq.has(item.seq), `seq ${item.seq} twice`).toBe(false)
          bySeq.set(item.seq, item.id)
        }
        for (const [seq, id] of acknowledged) expect(bySeq.get(seq), `acknowledged seq ${seq}`).toBe(id)
        const { lastSeq } = await store.head(THREAD)
        expect(lastSeq).toBeGreaterThanOrEqual(Math.max(0, ...acknowledged.keys()))
        const lines =
          (await expectParsable(join(threadDirectory, 'raw_traces.jsonl'))) +
          (await archivedLineCount(threadDirectory))
        expect(lines).toBe(active.length + archived.length)
        // A rewrite killed midway leaves its temporary file; the next one removes it. (A child killed
        // before its first append made the thread's folder leaves none.)
        const names = await readdir(threadDirectory).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return [] as string[]
          throw error
        })
        const leftovers = names.filter((name) => name.endsWith('.tmp'))
        expect(leftovers.length, leftovers.join(', ')).toBeLessThanOrEqual(1)
      }
      expect(acknowledged.size).toBeGreaterThan(TRIALS)
      // The kills really cut writes short: many inside an append, many inside an archive.
      expect(killedDuring.append, JSON.stringify(killedDuring)).toBeGreaterThanOrEqual(TRIALS / 5)
      expect(killedDuring.archive, JSON.stringify(killedDuring)).toBeGreaterThanOrEqual(TRIALS / 5)
      // Every tail torn by hand was moved aside; a kill inside an append can tear one more now and
      // then (a batch cut before its last line), which is moved aside the same way.
      const moved = events.filter((event) => event.type === 'torn-tail-moved').length
      expect(moved).toBeGreaterThanOrEqual(TRIALS / 5)
      expect(moved).toBeLessThanOrEqual(TRIALS / 5 + killedDuring.append)
      const counts: Record<string, number> = {}
      for (const type of [...events.map((event) => event.type), ...childEvents])
        counts[type] = (counts[type] ?? 0) + 1
      console.info(
        `crash safety: ${acknowledged.size} acknowledged items; killed during ${JSON.stringify(killedDuring)}; repairs ${JSON.stringify(counts)}`,
      )
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
