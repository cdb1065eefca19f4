import { resolve } from 'node:path'
import { fileStore } from '@strata-memory/store-file'
import { jsonReport } from './json-report.ts'
import { DEMO_THREAD_ID, runScenario } from './scenario.ts'
import { textReport } from './text-report.ts'

const USAGE = `Usage: pnpm demo [--json] [--full]
  --json  print one JSON object with the figures, nothing else
  --full  show every message of each context`

// pnpm may pass a literal '--' through; it carries no meaning here.
const args = process.argv.slice(2).filter((arg) => arg !== '--')
const unknown = args.filter((arg) => !['--json', '--full', '--help'].includes(arg))
if (unknown.length > 0) {
  console.error(`Unknown argument: ${unknown.join(' ')}\n${USAGE}`)
  process.exit(2)
}
if (args.includes('--help')) {
  console.log(USAGE)
  process.exit(0)
}

// The embedded default: JSONL files under ./memory (or STRATA_MEMORY_DIR), readable with any editor.
const dir = resolve(process.env.STRATA_MEMORY_DIR ?? 'memory')
const result = await runScenario({ store: fileStore({ dir }) })
if (args.includes('--json')) {
  process.stdout.write(`${JSON.stringify({ ...jsonReport(result), store: 'file', dir }, null, 2)}\n`)
} else {
  process.stdout.write(textReport(result, { full: args.includes('--full') }))
  process.stdout.write(
    `\nThe thread's files: ${dir}/agents/${DEMO_THREAD_ID}/ (raw_traces.jsonl, state.json, …)\n`,
  )
}
