import { CommanderError } from 'commander'
import { firstLine } from '../config/load-config'
import { CliError, EXIT_USAGE } from './cli-error'
import { createProgram } from './program'

/**
 * Runs `strata` with the arguments after the program name and returns the exit code. Errors a user
 * can fix are one line on stderr (`strata: …`), never a stack.
 */
export async function runCli(argv: readonly string[]): Promise<number> {
  const result = { exitCode: 0 }
  const program = createProgram(result)
  try {
    await program.parseAsync([...argv], { from: 'user' })
    return result.exitCode
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; commander has already printed its message.
      return error.exitCode === 0 ? 0 : EXIT_USAGE
    }
    if (error instanceof CliError) {
      process.stderr.write(`strata: ${error.message}\n`)
      return error.exitCode
    }
    // Core is loaded by the command that threw, if any: asked only then.
    const { StrataError } = await import('@strata-memory/core')
    if (StrataError.isInstance(error)) {
      // A long thread's verify or export can take longer than a store call is given by default.
      const hint =
        error.code === 'STRATA_STORE_FAILED' && error.details?.reason === 'timeout'
          ? ' Run with --timeout <seconds> to give each store call longer.'
          : ''
      process.stderr.write(`strata: ${firstLine(error)} (${error.code})${hint}\n`)
      return EXIT_USAGE
    }
    process.stderr.write(`strata: ${firstLine(error)}\n`)
    if (process.env.STRATA_DEBUG) process.stderr.write(`${(error as Error)?.stack ?? ''}\n`)
    return 1
  }
}
