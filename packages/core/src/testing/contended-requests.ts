import { expect } from 'vitest'
import type { Thread } from '../memory'

/** What one process of a contended-requests test reports: how its requests on the thread ended. */
export interface ContendedRequestsReport {
  /** Requests that held the thread and wrote all they had to. */
  completed: number
  /** Requests refused with `STRATA_THREAD_BUSY`. */
  busy: number
  /** Requests that failed otherwise: their errors, as text. */
  failed: string[]
}

/**
 * For a store's test of `thread.hold()` across processes, where each request holds the thread, appends
 * a user message, an assistant tool call and its result, then releases: checks that every request
 * completed or was refused with `STRATA_THREAD_BUSY` (some of each), and that the thread holds the
 * completed requests only, each whole and alone (user, call, result, never interleaved), with every
 * tool call answered and no hold left behind.
 */
export async function expectRequestsOneAtATime(
  thread: Thread,
  reports: readonly ContendedRequestsReport[],
  requestsPerProcess: number,
): Promise<void> {
  for (const report of reports) {
    expect(report.failed).toEqual([])
    expect(report.completed + report.busy).toBe(requestsPerProcess)
  }
  const completed = reports.reduce((sum, report) => sum + report.completed, 0)
  expect(completed).toBeGreaterThan(0)
  expect(reports.reduce((sum, report) => sum + report.busy, 0)).toBeGreaterThan(0)
  const interactions = await thread.toolInteractions()
  expect(interactions).toHaveLength(completed)
  expect(interactions.filter((interaction) => interaction.status !== 'success')).toEqual([])
  // A refused request wrote nothing: three messages per completed request, in whole runs.
  const items = await thread.items()
  expect(items).toHaveLength(3 * completed)
  for (let index = 0; index < items.length; index += 3) {
    const roles = items
      .slice(index, index + 3)
      .map((item) => (item.type === 'message' ? item.role : item.type))
    expect(roles).toEqual(['user', 'assistant', 'tool'])
  }
}
