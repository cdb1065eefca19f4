/** Exit codes of `strata`: 0 success, 1 `verify` found a problem, 2 a usage or input error. */
export const EXIT_OK = 0
export const EXIT_PROBLEMS = 1
export const EXIT_USAGE = 2

/**
 * An error the user can fix (a bad store URL, an unknown thread, a bad option): printed as one line,
 * without a stack, and the process exits with `exitCode`.
 */
export class CliError extends Error {
  readonly exitCode: number

  constructor(message: string, { exitCode = EXIT_USAGE }: { exitCode?: number } = {}) {
    super(message)
    this.name = 'CliError'
    this.exitCode = exitCode
  }
}
