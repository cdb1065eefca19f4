import { jsonReport } from './json-report.ts'
import { runScenario } from './scenario.ts'
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

const result = await runScenario()
process.stdout.write(
  args.includes('--json')
    ? `${JSON.stringify(jsonReport(result), null, 2)}\n`
    : textReport(result, { full: args.includes('--full') }),
)
