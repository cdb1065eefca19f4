import type { StrataStore } from '@strata-memory/core'
import type { AuditEntry } from '@strata-memory/core/store-kit'
import { CliError, EXIT_OK, EXIT_PROBLEMS } from '../cli/cli-error'
import type { CommandContext } from '../cli/command-context'
import { type Progress, progress } from '../output/progress'
import { checkThreadId, shownThreadId } from '../store/open-store'
import { describeStoreTarget } from '../store/store-target'
import { problemOf, type VerifyProblem } from './verify-problem'

/** The outcome of verifying one thread. */
export interface ThreadVerification {
  threadId: string
  items: number
  problems: VerifyProblem[]
}

/** The store's audit (`flags.audit`), or a one-line error naming what the store lacks. */
function auditOf(store: StrataStore): NonNullable<StrataStore['audit']> {
  if (typeof store.audit !== 'function') {
    throw new CliError(
      `verify: the '${store.name}' store has no audit capability (store contract v2, flags.audit), which verify calls. Use a store of this release.`,
    )
  }
  return store.audit.bind(store)
}

/**
 * `strata verify [<thread> | --all] [--repair]`: the store's own audit of each thread, read-only: seq
 * gaps across the active log and the archive, torn or corrupt lines, interrupted archives, tool calls
 * without results and cited content that is missing. Exits 1 when it finds a problem, saying how to
 * repair it; `--repair` has the store do the repairs it makes itself (moving a torn tail aside,
 * finishing an archive), then verifies again. The CLI knows no store's layout: each store reads its own.
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
  const { store } = await context.store()
  const audit = auditOf(store)
  const listed = await store.listThreads()
  if (threadId !== undefined && !listed.includes(threadId)) {
    throw new CliError(
      `Thread '${shownThreadId(threadId)}' not found in ${describeStoreTarget(context.target)}: \`strata threads\` lists the threads there.`,
    )
  }
  const threadIds = threadId !== undefined ? [threadId] : listed
  const showProgress = !context.output.json
  const results: ThreadVerification[] = []
  const repairedEntries: AuditEntry[] = []
  for (const id of threadIds) {
    let bar: Progress | undefined
    const report = await audit(id, {
      repair: options.repair === true,
      onProgress: (done, total) => {
        bar ??= progress({ total, label: `verify ${shownThreadId(id)}`, enabled: showProgress })
        bar.update(done)
      },
    })
    bar?.stop()
    repairedEntries.push(...report.repaired)
    results.push({ threadId: id, items: report.items, problems: report.entries.map(problemOf) })
  }
  const repaired = repairedEntries.map(problemOf)
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
}
