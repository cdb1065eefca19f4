import { invalidOptions, type Memory, openAppThread, type Thread } from '@strata-memory/core'

/** What a run's `configurable` holds that the adapter reads. */
export interface ConfigurableLike {
  thread_id?: unknown
  resource_id?: unknown
}

/**
 * The run's resource: the one given to the adapter, else `configurable.resource_id`. A
 * `resource_id` that is not a string is `STRATA_INVALID_OPTIONS`.
 */
export function resourceIdOf(fixed: string | undefined, configurable: ConfigurableLike | undefined) {
  if (fixed !== undefined) return fixed
  const id = configurable?.resource_id
  if (id === undefined) return undefined
  if (typeof id !== 'string') {
    invalidOptions(
      `configurable.resource_id must be a resource id string like 'user-42' (got ${JSON.stringify(id)}).`,
    )
  }
  return id as string
}

/**
 * Opens the app's thread (see core's `openAppThread`) and, with a resource, binds it: core's
 * `memory.thread(id, { resource })` on the open thread, which refuses another resource with
 * `STRATA_INVALID_OPTIONS` and leaves the binding as it was.
 */
export async function openResourceThread<L extends string>(
  memory: Memory<L>,
  appThreadId: string,
  resourceId: string | undefined,
): Promise<Thread<L>> {
  const thread = await openAppThread(memory, appThreadId)
  if (resourceId === undefined) return thread
  return memory.thread(thread.id, { resource: resourceId })
}
