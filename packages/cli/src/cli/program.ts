import { Command, Option } from 'commander'
import type { CommandContext, GlobalOptions } from './command-context'
import { VERSION } from './version'

// Each command's module (and with it core and the stores) is imported when that command runs, so
// `strata --version` and `strata --help` load commander and this file only.
const commands = {
  compact: () => import('../commands/compact-command'),
  export: () => import('../commands/export-command'),
  import: () => import('../commands/import-command'),
  query: () => import('../commands/query-command'),
  resource: () => import('../commands/resource-command'),
  status: () => import('../commands/status-command'),
  tail: () => import('../commands/tail-command'),
  threads: () => import('../commands/threads-command'),
  view: () => import('../commands/view-command'),
  verify: () => import('../verify/verify-command'),
}

/** The store's id of the app's thread id (core's mapping), core imported only now. */
const storeThreadIdOf = async (threadId: string) =>
  (await import('../store/open-store')).storeThreadIdOf(threadId)

/**
 * The `strata` program. Each command's action sets `result.exitCode`; errors propagate to
 * {@link runCli}, which prints them as one line.
 */
export function createProgram(result: { exitCode: number }): Command {
  const program = new Command('strata')
    .description('See, check, export and compact Strata memory threads.')
    .version(VERSION)
    .addOption(
      new Option(
        '--store <folder|url>',
        'a memory folder, or redis:// / rediss:// (default STRATA_MEMORY_DIR, else REDIS_URL, else ./memory)',
      ),
    )
    .option('--prefix <prefix>', 'the Redis key prefix', 'strata')
    .option('--config <file>', 'memory options module (default ./strata.config.{ts,mts,mjs,js})')
    .option('--levels <list>', 'the level ladder, broad to narrow, comma-separated')
    .option(
      '--timeout <seconds>',
      'how long one store call may take before it gives up (verify or export of a very long thread may need more)',
      '60',
    )
    .option('--json', 'print JSON for scripts')
    .option('--no-color', 'no colours')
    .showHelpAfterError()
    .configureOutput({ outputError: (text, write) => write(text) })
    .exitOverride()

  const run =
    <A extends unknown[]>(action: (context: CommandContext, ...args: A) => Promise<number>) =>
    async (...args: unknown[]) => {
      const command = args.at(-1) as Command
      const { CommandContext } = await import('./command-context')
      const context = new CommandContext(command.optsWithGlobals<GlobalOptions>())
      try {
        result.exitCode = await action(context, ...(args.slice(0, -1) as A))
      } finally {
        await context.close()
      }
    }

  program
    .command('threads')
    .description('threads with item counts, tokens and last write')
    .action(run(async (context) => (await commands.threads()).threadsCommand(context)))
  program
    .command('resource <id>')
    .description("a resource's threads (newest first), working memory and facts")
    .option('--limit <n>', 'threads to show', '50')
    .option('--cursor <cursor>', 'the next page of threads (printed after a full page)')
    .action(
      run((context, resourceId: string, options: { limit?: string; cursor?: string }) =>
        commands.resource().then(({ resourceCommand }) => resourceCommand(context, resourceId, options)),
      ),
    )
  program
    .command('query <text...>')
    .description("ranked recall across a resource's threads: thread, seq and a snippet per hit")
    .requiredOption('--resource <id>', 'the resource whose threads to search')
    .option('--limit <n>', 'hits to show (1-100)', '10')
    .option('--threads <ids>', 'only these threads of the resource, comma-separated')
    .action(
      run((context, words: string[], options: { resource: string; limit?: string; threads?: string }) =>
        commands.query().then(({ queryCommand }) => queryCommand(context, words, options)),
      ),
    )
  program
    .command('status <thread>')
    .description('level, open scopes, items, tokens, summaries, facts, archive and the last compaction')
    .action(
      run(async (context, threadId: string) =>
        (await commands.status()).statusCommand(context, await storeThreadIdOf(threadId)),
      ),
    )
  program
    .command('view <thread>')
    .description('the level view, coloured by level')
    .option('--level <level>', 'the level to view (default: the current one)')
    .action(
      run(async (context, threadId: string, options: { level?: string }) =>
        (await commands.view()).viewCommand(context, await storeThreadIdOf(threadId), options),
      ),
    )
  program
    .command('context <thread>')
    .description('exactly what the model would be sent, with its token count (read-only)')
    .option('--level <level>', 'preview another level (changes nothing)')
    .action(
      run(async (context, threadId: string, options: { level?: string }) =>
        (await commands.view()).contextCommand(context, await storeThreadIdOf(threadId), options),
      ),
    )
  program
    .command('compact <thread>')
    .description("compact by hand with the config's policies")
    .option('--force', 'compact even under the threshold')
    .option('--budget <tokens>', 'the input budget when the config sets no compaction policy (8000)')
    .action(
      run(async (context, threadId: string, options: { force?: boolean; budget?: string }) =>
        (await commands.compact()).compactCommand(context, await storeThreadIdOf(threadId), options),
      ),
    )
  program
    .command('export <thread>')
    .description('the thread as JSONL (what import reads) or Markdown, on stdout')
    .addOption(
      new Option('--format <format>', 'jsonl or markdown').choices(['jsonl', 'markdown']).default('jsonl'),
    )
    .option('--archive', 'include the archived items (needed to import)')
    .action(
      run(async (context, threadId: string, options: { format?: string; archive?: boolean }) =>
        (await commands.export()).exportCommand(context, await storeThreadIdOf(threadId), options),
      ),
    )
  program
    .command('import <file>')
    .description('write a JSONL export into a new thread')
    .option('--thread <id>', 'the thread to write (default: the exported one)')
    .action(
      run(async (context, file: string, options: { thread?: string }) =>
        (await commands.import()).importCommand(context, file, {
          ...options,
          ...(options.thread === undefined ? {} : { thread: await storeThreadIdOf(options.thread) }),
        }),
      ),
    )
  program
    .command('verify [thread]')
    .description(
      'check logs read-only: seq gaps, torn or corrupt lines, orphaned tool calls, missing content',
    )
    .option('--all', 'every thread')
    .option('--repair', 'do the repairs the store itself makes (torn tail, interrupted archive)')
    .action(
      run(async (context, threadId: string | undefined, options: { all?: boolean; repair?: boolean }) =>
        (await commands.verify()).verifyCommand(
          context,
          threadId === undefined ? undefined : await storeThreadIdOf(threadId),
          options,
        ),
      ),
    )
  program
    .command('tail <thread>')
    .description('follow new items live (Ctrl-C to stop)')
    .option('--lines <n>', 'items to show first', '10')
    .option('--interval <ms>', 'how often to look', '500')
    .action(
      run(async (context, threadId: string, options: { lines?: string; interval?: string }) =>
        (await commands.tail()).tailCommand(context, await storeThreadIdOf(threadId), options),
      ),
    )
  return program
}
