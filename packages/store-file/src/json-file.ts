import { statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { isPlainObject } from '@strata-memory/core/store-kit'
import { corruptLog, isMissing, storeFailed } from './file-errors'

/**
 * Reads a file that holds one JSON object (`state.json`, a content record): undefined when it does not
 * exist, `STRATA_CORRUPT_LOG` naming the file when it is not a JSON object.
 * @param what what the file holds, for the error message, e.g. `state.json`
 */
export async function readJsonObject(
  path: string,
  what: string,
): Promise<Record<string, unknown> | undefined> {
  let text: string
  try {
    // A file that is not there (a thread bound to no resource, at every open) costs a synchronous stat
    // of microseconds, not a round trip through the thread pool; one that is there is read through the
    // pool, where a call that hangs is cut short by the store's deadline.
    if (statSync(path, { throwIfNoEntry: false }) === undefined) return undefined
    text = await readFile(path, 'utf8')
  } catch (error) {
    if (isMissing(error)) return undefined
    throw storeFailed('read', path, error)
  }
  return parseJsonObject(text, path, what)
}

/** Parses the text of a file that holds one JSON object (see readJsonObject). */
export function parseJsonObject(text: string, path: string, what: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw corruptLog(path, 1, `is not valid JSON (${what} holds one JSON object)`)
  }
  if (!isPlainObject(value)) throw corruptLog(path, 1, `is not a JSON object (${what} holds one)`)
  return value
}
