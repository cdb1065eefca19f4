#!/usr/bin/env node
import { spawnSync } from 'node:child_process'
import module from 'node:module'
import { VERSION } from './cli/version'
import { needsTypeStripping } from './config/type-stripping'

// Node keeps the compiled code of the modules a run loads (in the OS temp folder, or where
// NODE_COMPILE_CACHE says; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a command starts without
// compiling core and the store again, as TypeScript's tsc does.
module.enableCompileCache?.()

const args = process.argv.slice(2)
// `strata --version` (what commander prints for it) without loading the program.
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${VERSION}\n`)
  process.exit(0)
}
if (needsTypeStripping(args, process.cwd())) {
  // A strata.config.ts on a Node that strips types only when asked: run again, asking.
  const again = spawnSync(
    process.execPath,
    [
      '--experimental-strip-types',
      '--no-warnings=ExperimentalWarning',
      ...process.execArgv,
      process.argv[1]!,
      ...args,
    ],
    { stdio: 'inherit', env: { ...process.env, STRATA_CLI_TYPE_STRIPPING: '1' } },
  )
  process.exit(again.status ?? 1)
}

// `strata export … | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw error
})
const { runCli } = await import('./cli/run-cli')
process.exitCode = await runCli(args)
