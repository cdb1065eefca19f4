#!/usr/bin/env node
import { runCli } from './cli/run-cli'

// `strata export … | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw error
})
process.exitCode = await runCli(process.argv.slice(2))
