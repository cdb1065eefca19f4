#!/usr/bin/env node
// Starts the built app (`next start`) on PORT (default 3000) and prints its URL once it answers.
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const next = require.resolve('next/dist/bin/next')
const port = process.env.PORT ?? '3000'
const host = process.env.HOST ?? 'localhost'
const child = spawn(process.execPath, [next, 'start', '--port', port, '--hostname', host], {
  stdio: ['inherit', 'pipe', 'inherit'],
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
})
let announced = false
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  if (!announced && /Ready|started/i.test(String(chunk))) {
    announced = true
    console.log(
      `\n  Strata web app: http://${host}:${port}  (offline scripted agent unless OPENAI_API_KEY or ANTHROPIC_API_KEY is set)\n`,
    )
  }
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code) => process.exit(code ?? 0))
