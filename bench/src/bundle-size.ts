import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'

/** One measured bundle: what an app's import pulls in, minified and gzipped. */
export interface BundleCase {
  name: string
  /** The entry's source: an import of the built package, re-exported so nothing is shaken off. */
  source: string
  /** Packages left out: the framework an adapter runs on, Node's built-ins, core under an adapter. */
  external?: string[]
  platform?: 'neutral' | 'node'
  /** The size (gzip -6 bytes) it may not exceed: today's size and a margin, until the target is met. */
  budget: number
  /** The size issue 30 asks for, where it names one. */
  target?: number
}

const FRAMEWORKS = ['ai', '@ai-sdk/*', 'zod', '@langchain/*', 'langchain', '@mastra/*', 'redis', '@redis/*']
const KB = 1024

/**
 * The bundles: `createMemory` alone, one helper alone, each core entry, and each adapter's and store's own code (its
 * framework and core left out). Budgets are today's sizes with about 5% to spare: a change that makes
 * an app pay more fails `bundle-size.test.ts`; the targets are where issue 30 wants them.
 */
export const BUNDLES: BundleCase[] = [
  {
    name: 'createMemory',
    source: "export { createMemory } from '@strata-memory/core'",
    // 84.5 → 86.0 KB at stop 42: memory_query's thread index (a sync path, view ids, the index pool, the
    // sync after an archive) and the ranking of identifiers (a query's wholes and parts).
    // 86.0 → 86.5 KB at stop 45: the level view extended while the log grows (`LevelViews`) and
    // `context(options, map)`, which spare a chat call a walk of the view and a copy of its context.
    // 86.5 → 86.6 KB at stop 49: a history that keeps a tool call with another result rewinds to
    // before the call (`rewindTo`), and files shown whole in every context.
    budget: 86.6 * KB,
    target: 32 * KB,
  },
  // 85.5 → 87.3 KB at stop 42: as createMemory, and `thread.unseen()`; 87.3 → 87.8 KB at stop 45, as
  // createMemory.
  { name: 'core', source: "export * from '@strata-memory/core'", budget: 87.8 * KB, target: 40 * KB },
  // One helper alone: a call left at a module's top level keeps what it reaches in every partial import
  // (a top-level patternSummarizer() once made this 14.6 KB).
  {
    name: 'tokenEstimator',
    source: "export { tokenEstimator } from '@strata-memory/core'",
    budget: 5.5 * KB,
  },
  { name: 'core/tools', source: "export * from '@strata-memory/core/tools'", budget: 5.2 * KB },
  {
    name: 'core/prompt-summarizer',
    source: "export * from '@strata-memory/core/prompt-summarizer'",
    budget: 4.2 * KB,
  },
  // Stop 44: `shareItemStrings`, which both stores call on every item they read: 7.1 → 7.3 KB.
  // Stop 45: `copyItem`, moved here from the Redis store for both stores' appends, and
  // `checkStoredSize`: 7.3 → 7.8 KB (the Redis store's own code shrank by as much).
  // Stop 47: `checkOptionKeys` (both stores refuse a misspelt option, naming the one it looks like):
  // 7.8 → 8.0 KB.
  { name: 'core/store-kit', source: "export * from '@strata-memory/core/store-kit'", budget: 8 * KB },
  // 10.8 → 11.3 KB at stop 42: notContinuing(), the not-continuing error Mastra's read-only calls share.
  // 11.3 → 11.6 KB at stop 46: checkOptionKeys (a misspelt adapter option refused, with the option it
  // looks like: createMemory's typo search) and the resource-id refusal of a bad `resource` option.
  { name: 'core/adapter-kit', source: "export * from '@strata-memory/core/adapter-kit'", budget: 11.6 * KB },
  {
    name: 'core/tokenizer',
    source: "export * from '@strata-memory/core/tokenizer'",
    external: ['gpt-tokenizer', 'gpt-tokenizer/*'],
    budget: 0.6 * KB,
  },
  ...(
    [
      // Stop 47: people's texts for a lost chat, a store that did not answer and an older message
      // regenerated or edited, the empty-chat regenerate refusal and the thread's last seq before a
      // rewind: 12.8 → 13.0 KB.
      // Stop 48: a regenerated answer shows the compaction its replaced answer showed
      // (`writeMissedTransitions` writes it; `answerCompactions`): 13.0 → 13.2 KB.
      // Stop 49: an edit keeps in view what the replaced answer showed (a compaction of the rewound
      // turn, a transition made between the answers: `keptSeq`, `conversationBefore`, the orphaned
      // compaction's placement in `loadUIMessages`), and client-side tools' outputs taken back in the
      // last answer (`outputsOf`): 13.2 → 13.4 KB.
      ['ai-sdk', 13.4],
      ['langchain', 11],
      // Stop 47: saveMessages stores a message once under its id (saved-messages.ts), strataErrorOf
      // finds errors Mastra passes on by their message, a lost thread deleted by its Mastra id, and
      // listThreads' page checks: 15.7 → 16.3 KB.
      // Stop 48: Mastra's own memory where StrataMemory differed (saved messages keep createdAt and
      // metadata, updateThread merges metadata, recall pages from the newest): 16.3 → 16.6 KB.
      // Stop 49: Mastra's `context` messages shown, not stored (`RunContext`), and a finished run's
      // message ids remembered so Mastra's save after a sub-agent's run stores nothing twice, a tool's
      // `suspend()` giving the thread back, a run resumed in another process stored once (Mastra ids on
      // the stored request and answers, `mastra-ids.ts`), recall pages that keep a call with its
      // results (`windowPage`'s moved boundaries), the first-step hold (an input guardrail's abort holds
      // nothing), the working-memory tool's object input: 16.6 → 17.4 KB.
      ['mastra', 17.4],
    ] as const
  ).map(([name, budget]) => ({
    name,
    source: `export * from '@strata-memory/${name}'`,
    external: ['@strata-memory/core', '@strata-memory/core/*', ...FRAMEWORKS],
    budget: budget * KB,
  })),
  ...(
    [
      // Stop 42: content queries read only matching records (file: the catalog journal; Redis: the
      // content-meta hash and its two read scripts): 22.5 → 24.0 and 15.8 → 16.5 KB.
      // Stop 44: an archive streams the log through reused buffers (windowed reads, the archive's parts
      // and the new log written as lines come, a crashed rewrite's leftovers removed): 24.0 → 24.6 KB.
      // Stop 45: an append's items checked and copied in one pass, its bytes built in one buffer, and
      // a kept log closed after 2 s idle: 24.6 → 25.1 KB.
      // Stop 48: an item's line from one JSON.stringify of its copy (`renamedBody`) and a batch encoded
      // without measuring each line (a few per cent less CPU per append): 25.1 → 25.3 KB.
      ['store-file', 25.3],
      ['store-redis', 16.5],
    ] as const
  ).map(([name, budget]) => ({
    name,
    source: `export * from '@strata-memory/${name}'`,
    external: ['@strata-memory/core', '@strata-memory/core/*', ...FRAMEWORKS],
    platform: 'node' as const,
    budget: budget * KB,
  })),
]

/** This package's folder: its node_modules resolve every Strata package (their built `dist`). */
const BENCH = fileURLToPath(new URL('..', import.meta.url))

/**
 * Bundles `source` as an app's bundler would (`esbuild --bundle --minify --format=esm`, neutral
 * platform unless Node's is needed) from the built packages, and returns the gzipped size in bytes.
 */
export async function bundleSize(bundle: Pick<BundleCase, 'source' | 'external' | 'platform'>) {
  const dir = mkdtempSync(join(BENCH, '.bundle-'))
  try {
    const entry = join(dir, 'entry.mjs')
    writeFileSync(entry, `${bundle.source}\n`)
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: bundle.platform ?? 'neutral',
      mainFields: ['module', 'main'],
      conditions: ['import'],
      external: bundle.external ?? [],
      write: false,
      logLevel: 'silent',
    })
    const code = result.outputFiles[0]!.contents
    return { minified: code.length, gzipped: gzipSync(code, { level: 6 }).length }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A size in KB, one decimal. */
export const kb = (bytes: number) => `${(bytes / KB).toFixed(1)} KB`
