import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createMemory, type StrataStore } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { runChild } from './scale-child-run.ts'
import {
  type FixtureLayout,
  SCALE_FIXTURE_VERSION,
  type ScaleLevel,
  writeScaleThread,
} from './scale-fixture.ts'

/** The thread id of every scale fixture. */
export const SCALE_THREAD = 'bench-scale'

/** Where fixtures are kept between runs (gitignored); `STRATA_BENCH_CACHE` overrides it. */
export const CACHE_DIR =
  process.env.STRATA_BENCH_CACHE ?? fileURLToPath(new URL('../.cache/scale', import.meta.url))

/** A cached fixture: a file store folder holding the thread, and where its cycles start. */
export interface CachedFixture {
  /** The file store's `dir`: copy it before writing to it. */
  dir: string
  layout: FixtureLayout
}

/** The folder of one thread inside a file store's `dir`. */
export const threadFolder = (dir: string, threadId = SCALE_THREAD) => join(dir, 'agents', threadId)

const rootOf = (size: number) => join(CACHE_DIR, `v${SCALE_FIXTURE_VERSION}-${size}`)

/** The cached fixture of `size` items, or undefined when none is complete. */
function readFixture(size: number): CachedFixture | undefined {
  const layoutPath = join(rootOf(size), 'layout.json')
  if (!existsSync(layoutPath)) return undefined
  const layout = JSON.parse(readFileSync(layoutPath, 'utf8')) as FixtureLayout
  return { dir: join(rootOf(size), 'memory'), layout }
}

/**
 * The fixture of `size` items, written once through the public thread API into a file store under
 * {@link CACHE_DIR} (keyed by size and generator version) and reused by later runs. It is written by
 * a node process of its own (`scale-child.mjs generate`), whose heap may grow past this one's limit.
 */
export async function cachedFixture(size: number, progress: (line: string) => void): Promise<CachedFixture> {
  const cached = readFixture(size)
  if (cached !== undefined) return cached
  progress(
    `scale: writing the ${size.toLocaleString('en-US')}-item fixture to ${rootOf(size)} (about 1 ms an item; cached for later runs)`,
  )
  const result = await runChild(['generate', String(size)], Number.POSITIVE_INFINITY, progress)
  const written = readFixture(size)
  if (!result.ok || written === undefined)
    throw new Error(
      `scale: the fixture of ${size} items was not written (${result.ok ? 'no layout' : result.message})`,
    )
  progress(`scale: fixture ${size.toLocaleString('en-US')} written in ${(result.ms / 1000).toFixed(1)} s`)
  return written
}

/**
 * Writes the fixture of `size` items (see {@link cachedFixture}). A fixture whose writing was cut short
 * is never used: it is written to a temporary folder and renamed when complete.
 */
export async function writeFixture(size: number, progress: (line: string) => void): Promise<FixtureLayout> {
  const root = rootOf(size)
  mkdirSync(CACHE_DIR, { recursive: true })
  const partial = `${root}.partial-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  const dir = join(partial, 'memory')
  const store = fileStore({ dir, fsync: false, timeoutMs: Number.POSITIVE_INFINITY })
  const memory = createMemory<ScaleLevel>({ store })
  const layout = await writeScaleThread(await memory.thread(SCALE_THREAD), size, progress)
  await memory.close()
  await writeFile(join(partial, 'layout.json'), `${JSON.stringify(layout)}\n`)
  rmSync(root, { recursive: true, force: true })
  renameSync(partial, root)
  return layout
}

/** A fresh copy of a cached fixture's store folder at `target` (which must not exist). */
export function copyFixture(fixture: CachedFixture, target: string): string {
  cpSync(fixture.dir, target, { recursive: true })
  return target
}

/** Bytes of the thread's log files on disk (every `.jsonl` under its folder, content records left out). */
export function logBytes(folder: string): number {
  let bytes = 0
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name)
    if (entry.isDirectory() && entry.name !== 'content') bytes += logBytes(path)
    else if (entry.isFile() && entry.name.endsWith('.jsonl')) bytes += statSync(path).size
  }
  return bytes
}

/** Items copied per batch append. */
const COPY_BATCH = 2_000

/**
 * Copies a thread from one store to another through the public store API: its items (active ones, a
 * page at a time, appended in batches), its content records and its state. The target thread must be
 * empty; the seqs come out the same since both start at 1.
 */
export async function copyThread(
  from: StrataStore,
  to: StrataStore,
  threadId: string,
  targetThreadId = threadId,
): Promise<void> {
  const { lastSeq } = await from.head(threadId)
  let expectedSeq = 0
  while (expectedSeq < lastSeq) {
    const page = await from.read(threadId, { fromSeq: expectedSeq + 1, limit: COPY_BATCH })
    if (page.length === 0) break
    const stored = await to.append(
      targetThreadId,
      page.map(({ seq: _seq, ...item }) => item),
      { expectedSeq },
    )
    expectedSeq = stored.at(-1)!.seq
  }
  if (expectedSeq !== lastSeq) throw new Error(`copyThread: copied up to seq ${expectedSeq} of ${lastSeq}`)
  if (from.queryContent && to.putContent) {
    for (const record of await from.queryContent(threadId)) await to.putContent(targetThreadId, record)
  }
  const state = await from.getState(threadId)
  if (state !== undefined) await to.setState(targetThreadId, state)
}
