import { createRequire } from 'node:module'
import type { SingleBar } from 'cli-progress'

// Loaded (synchronously: cli-progress is CommonJS) only when a bar is shown, so quick commands start faster.
const load = () => createRequire(import.meta.url)('cli-progress') as typeof import('cli-progress')

/** A progress counter that shows a bar on stderr only once the work has taken about a second. */
export interface Progress {
  /** Sets how far the work is. */
  update(done: number): void
  stop(): void
}

const SHOW_AFTER_MS = 1_000

/**
 * A progress bar for `total` units of work, shown on a terminal's stderr when the work passes about a
 * second, never with `--json` or when stderr is not a terminal.
 */
export function progress({
  total,
  label,
  enabled,
}: {
  total: number
  label: string
  enabled: boolean
}): Progress {
  if (!enabled || !process.stderr.isTTY || total <= 0)
    return { update: () => undefined, stop: () => undefined }
  const started = Date.now()
  let bar: SingleBar | undefined
  return {
    update(done) {
      if (bar === undefined) {
        if (Date.now() - started < SHOW_AFTER_MS) return
        bar = new (load().SingleBar)({
          format: `${label} [{bar}] {percentage}% | {value}/{total}`,
          stream: process.stderr,
          hideCursor: true,
          clearOnComplete: true,
        })
        bar.start(total, done)
        return
      }
      bar.update(done)
    },
    stop() {
      bar?.stop()
    },
  }
}
