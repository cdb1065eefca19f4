import { Command, Option } from 'commander'
import { compactCommand } from '../commands/compact-command'
import { exportCommand } from '../commands/export-command'
import { importCommand } from '../commands/import-command'
import { queryCommand } from '../commands/query-command'
import { resourceCommand } from '../commands/resource-command'
import { statusCommand } from '../commands/status-command'
import { tailCommand } from '../commands/tail-command'
import { threadsCommand } from '../commands/threads-command'
import { contextCommand, viewCommand } from '../commands/view-command'
import { storeThreadIdOf } from '../store/open-store'
import { verifyCommand } from '../verify/verify-command'
import { CommandContext, type GlobalOptions } from './command-context'
import { VERSION } from './version'

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
    .option('--json', 'print JSON for scripts')
    .option('--no-color', 'no colours')
    .showHelpAfterError()
    .configureOutput({ outputError: (text, write) => write(text) })
    .exitOverride()

  const run =
    <A extends unknown[]>(action: (context: CommandContext, ...args: A) => Promise<number>) =>
    async (...args: unknown[]) => {
      const command = args.at(-1) as Command
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
    .action(run(threadsCommand))
  program
    .command('resource <id>')
    .description("a resource's threads (newest first), working memory and facts")
    .option('--limit <n>', 'threads to show', '50')
    .option('--cursor <cursor>', 'the next page of threads (printed after a full page)')
    .action(
      run((context, resourceId: string, options: { limit?: string; cursor?: string }) =>
        resourceCommand(context, resourceId, options),
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
        queryCommand(context, words, options),
      ),
    )
  program
    .command('status <thread>')
    .description('level, open scopes, items, tokens, summaries, facts, archive and the last compaction')
    .action(run(async (context, threadId: string) => statusCommand(context, await storeThreadIdOf(threadId))))
  program
    .command('view <thread>')
    .description('the level view, coloured by level')
    .option('--level <level>', 'the level to view (default: the current one)')
    .action(
      run(async (context, threadId: string, options: { level?: string }) =>
        viewCommand(context, await storeThreadIdOf(threadId), options),
      ),
    )
  program
    .command('context <thread>')
    .description('exactly what the model would be sent, with its token count (read-only)')
    .option('--level <level>', 'preview another level (changes nothing)')
    .action(
      run(async (context, threadId: string, options: { level?: string }) =>
        contextCommand(context, await storeThreadIdOf(threadId), options),
      ),
    )
  program
    .command('compact <thread>')
    .description("compact by hand with the config's policies")
    .option('--force', 'compact even under the threshold')
    .option('--budget <tokens>', 'the input budget when the config sets no compaction policy (8000)')
    .action(
      run(async (context, threadId: string, options: { force?: boolean; budget?: string }) =>
        compactCommand(context, await storeThreadIdOf(threadId), options),
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
        exportCommand(context, await storeThreadIdOf(threadId), options),
      ),
    )
  program
    .command('import <file>')
    .description('write a JSONL export into a new thread')
    .option('--thread <id>', 'the thread to write (default: the exported one)')
    .action(
      run(async (context, file: string, options: { thread?: string }) =>
        importCommand(context, file, {
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
        verifyCommand(context, threadId === undefined ? undefined : await storeThreadIdOf(threadId), options),
      ),
    )
  program
    .command('tail <thread>')
    .description('follow new items live (Ctrl-C to stop)')
    .option('--lines <n>', 'items to show first', '10')
    .option('--interval <ms>', 'how often to look', '500')
    .action(
      run(async (context, threadId: string, options: { lines?: string; interval?: string }) =>
        tailCommand(context, await storeThreadIdOf(threadId), options),
      ),
    )
  return program
}
