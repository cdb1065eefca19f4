import { existsSync, statSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { contentFileName, fileStore } from '@strata-memory/store-file'
import { CliError, EXIT_OK, EXIT_PROBLEMS } from '../cli/cli-error'
import type { CommandContext } from '../cli/command-context'
import { progress } from '../output/progress'
import { checkThreadId, connectRedis, shownThreadId } from '../store/open-store'
import { describeStoreTarget, type StoreTarget } from '../store/store-target'
import { archiveSize, readArchiveFiles } from './file-archive-reader'
import { readLogFile } from './file-log-reader'
import { LogAudit } from './log-audit'
import { readRedisLog, redisThreadKeys } from './redis-log-reader'
import type { VerifyProblem } from './verify-problem'

/** The outcome of verifying one thread. */
export interface ThreadVerification {
  threadId: string
  items: number
  problems: VerifyProblem[]
}

/** Reads threads read-only, each with its own audit; released with `close()`. */
interface Verifier {
  threads(): Promise<string[]>
  exists(threadId: string): Promise<boolean>
  verify(threadId: string, showProgress: boolean): Promise<ThreadVerification>
  close(): Promise<void>
}

function fileVerifier(dir: string): Verifier {
  const agents = join(dir, 'agents')
  const threads = async () =>
    existsSync(agents)
      ? (await readdir(agents, { withFileTypes: true }))
          .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
          .map((entry) => entry.name)
          .sort()
      : []
  return {
    threads,
    exists: async (threadId) => existsSync(join(agents, threadId)),
    async verify(threadId, showProgress) {
      const folder = join(agents, threadId)
      const audit = new LogAudit(threadId)
      const active = join(folder, 'raw_traces.jsonl')
      const activeSize = existsSync(active) ? statSync(active).size : 0
      const bar = progress({
        total: activeSize + archiveSize(folder),
        label: `verify ${shownThreadId(threadId)}`,
        enabled: showProgress,
      })
      await readLogFile(audit, 'active', active, 'raw_traces.jsonl', (done) => bar.update(done))
      readArchiveFiles(audit, folder, (done) => bar.update(activeSize + done))
      bar.stop()
      audit.finish()
      await audit.checkContent(async (ids) => {
        let others: string[] | undefined
        const found: boolean[] = []
        for (const id of ids) {
          const name = contentFileName(id)
          if (existsSync(join(folder, 'content', name))) {
            found.push(true)
            continue
          }
          // A sub-agent sharing its parent's content cites records kept in the parent's folder.
          others ??= await threads()
          found.push(others.some((other) => existsSync(join(agents, other, 'content', name))))
        }
        return found
      })
      return { threadId, items: audit.items, problems: audit.problems }
    },
    close: async () => undefined,
  }
}

async function redisVerifier(url: string, prefix: string): Promise<Verifier> {
  const client = await connectRedis(url)
  const threads = async () => (await client.zRange(`${prefix}:threads`, 0, -1)).sort()
  return {
    threads,
    exists: async (threadId) => (await client.lLen(redisThreadKeys(prefix, threadId).log)) > 0,
    async verify(threadId, showProgress) {
      const audit = new LogAudit(threadId)
      let bar: ReturnType<typeof progress> | undefined
      await readRedisLog(audit, client, prefix, threadId, (done, total) => {
        bar ??= progress({ total, label: `verify ${shownThreadId(threadId)}`, enabled: showProgress })
        bar.update(done)
      })
      bar?.stop()
      audit.finish()
      await audit.checkContent(async (ids) => {
        const own = await client.hmGet(redisThreadKeys(prefix, threadId).content, ids)
        const found = own.map((value) => value !== null)
        if (found.every(Boolean)) return found
        for (const other of await threads()) {
          const values = await client.hmGet(redisThreadKeys(prefix, other).content, ids)
          values.forEach((value, index) => {
            if (value !== null) found[index] = true
          })
        }
        return found
      })
      return { threadId, items: audit.items, problems: audit.problems }
    },
    close: async () => {
      await client.close()
    },
  }
}

async function verifierOf(target: StoreTarget): Promise<Verifier> {
  if (target.kind === 'redis') return redisVerifier(target.url, target.prefix)
  if (!existsSync(target.dir)) {
    throw new CliError(`No memory folder at ${target.dir}: pass --store <folder> or set STRATA_MEMORY_DIR.`)
  }
  return fileVerifier(target.dir)
}

/**
 * `strata verify [<thread> | --all] [--repair]`: reads the logs itself, read-only, and reports seq gaps
 * across the active log and the archive, torn or corrupt lines, tool calls without results and
 * cited content that is missing. Exits 1 when it finds a problem, saying how to repair it; `--repair`
 * does the repairs the store itself makes (moving a torn tail aside, finishing an archive), then
 * verifies again.
 */
export async function verifyCommand(
  context: CommandContext,
  threadId: string | undefined,
  options: { all?: boolean; repair?: boolean },
): Promise<number> {
  if ((threadId === undefined) === (options.all !== true)) {
    throw new CliError('verify: give one thread id, or --all.')
  }
  if (threadId !== undefined) checkThreadId(threadId)
  const verifier = await verifierOf(context.target)
  try {
    const threadIds = threadId !== undefined ? [threadId] : await verifier.threads()
    if (threadId !== undefined && !(await verifier.exists(threadId))) {
      throw new CliError(
        `Thread '${shownThreadId(threadId)}' not found in ${describeStoreTarget(context.target)}: \`strata threads\` lists the threads there.`,
      )
    }
    const showProgress = !context.output.json
    let results: ThreadVerification[] = []
    for (const id of threadIds) results.push(await verifier.verify(id, showProgress))
    let repaired: VerifyProblem[] = []
    if (options.repair === true) {
      repaired = results.flatMap((result) => result.problems.filter((problem) => problem.repairable))
      const toRepair = [...new Set(repaired.map((problem) => problem.threadId))]
      if (toRepair.length > 0 && context.target.kind === 'file') {
        // The file store repairs a torn tail or an interrupted archive, under the thread's lock, when it reads.
        const store = fileStore({ dir: context.target.dir, onEvent: () => undefined })
        for (const id of toRepair) {
          await store.read(id)
          await store.readArchive(id)
        }
        results = []
        for (const id of threadIds) results.push(await verifier.verify(id, showProgress))
      }
    }
    const problems = results.flatMap((result) => result.problems)
    const { colours } = context.output
    context.output.result(
      { ok: problems.length === 0, store: context.target, threads: results, repaired },
      () => {
        const lines: string[] = []
        if (repaired.length > 0)
          lines.push(colours.green(`Repaired: ${repaired.map((problem) => problem.message).join(' ')}`))
        for (const result of results) {
          if (result.problems.length === 0) {
            lines.push(
              `${colours.green('✓')} ${shownThreadId(result.threadId)}: ${result.items} items, no problem`,
            )
            continue
          }
          lines.push(
            `${colours.red('✗')} ${shownThreadId(result.threadId)}: ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'} (${result.items} items read)`,
          )
          for (const problem of result.problems) {
            lines.push(`  ${colours.red(problem.kind)}: ${problem.message}`)
            lines.push(`    ${colours.dim('repair:')} ${problem.repair}`)
          }
        }
        if (results.length === 0) lines.push('No threads.')
        return lines.join('\n')
      },
    )
    return problems.length === 0 ? EXIT_OK : EXIT_PROBLEMS
  } finally {
    await verifier.close()
  }
}
