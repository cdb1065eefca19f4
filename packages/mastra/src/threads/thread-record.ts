import type { JsonObject, StrataStore } from '@strata-memory/core'

/** The state key under which a Strata thread keeps its Mastra thread: core's own keys are left alone. */
export const THREAD_STATE_KEY = 'mastra'

/** A Mastra thread as kept in the Strata thread's state (`store.getState(id).mastra`). */
export interface MastraThreadRecord {
  /** Mastra's own thread id, as given (the Strata id is its escaped or hashed form). */
  threadId: string
  resourceId: string
  title?: string
  metadata?: JsonObject
  /** ISO timestamps. */
  createdAt: string
  updatedAt: string
  /**
   * The thread's working memory when its scope is `'thread'` (Markdown, or JSON text with a schema);
   * kept beside the metadata, so `updateThread({ metadata })` leaves it alone.
   */
  workingMemory?: string
}

const isRecord = (value: unknown): value is MastraThreadRecord =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as MastraThreadRecord).threadId === 'string' &&
  typeof (value as MastraThreadRecord).resourceId === 'string'

/** The Mastra thread a Strata thread's state keeps, or undefined for a thread Mastra never saved. */
export function threadRecordIn(state: JsonObject | undefined): MastraThreadRecord | undefined {
  const record = state?.[THREAD_STATE_KEY]
  return isRecord(record) ? record : undefined
}

/** The Mastra thread a Strata thread keeps, or undefined for a thread Mastra never saved. */
export async function readThreadRecord(
  store: StrataStore,
  strataThreadId: string,
): Promise<MastraThreadRecord | undefined> {
  return threadRecordIn(await store.getState(strataThreadId))
}

/** Writes the Mastra thread into the Strata thread's state, keeping core's keys. */
export async function writeThreadRecord(
  store: StrataStore,
  strataThreadId: string,
  record: MastraThreadRecord,
): Promise<void> {
  const state = (await store.getState(strataThreadId)) ?? {}
  await store.setState(strataThreadId, {
    ...state,
    [THREAD_STATE_KEY]: JSON.parse(JSON.stringify(record)) as JsonObject,
  })
}
