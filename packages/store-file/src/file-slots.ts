import { mkdir, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import {
  assertThreadId,
  type JsonObject,
  type LeaseWriteOptions,
  type StoreSlotMethods,
} from '@strata-memory/core'
import { checkSlotName, checkSlotValue } from '@strata-memory/core/store-kit'
import { syncDirectory, writeFileAtomic } from './durable-fs'
import type { FileContext } from './file-context'
import { isMissing, storeFailed } from './file-errors'
import type { FileThreadsParts } from './file-threads'
import { readJsonObject } from './json-file'

/**
 * The file of a thread's slot, beside `state.json`: `slot.<name>.json` (slot names are lower case, so
 * no two collide on a case-insensitive file system).
 */
export const slotFileName = (name: string) => `slot.${name}.json`

/**
 * The file store's slots (store contract `v2`, `flags.slots`): one file per slot in the thread's
 * folder, read without the lock and written like `state.json` (holding the thread's lock, fenced by
 * the lease, replaced atomically by rename, synced). They are not thread data (`listThreads` does not
 * look at them) and go with the thread's folder when it is deleted.
 */
export function fileSlots(
  context: FileContext,
  { fence }: Pick<FileThreadsParts, 'fence'>,
): StoreSlotMethods {
  const { durable, threadFiles, locked } = context

  return {
    async getSlot(threadId: string, name: string): Promise<JsonObject | undefined> {
      assertThreadId(threadId)
      checkSlotName(name, 'getSlot')
      const path = join(threadFiles(threadId).directory, slotFileName(name))
      return (await readJsonObject(path, slotFileName(name))) as JsonObject | undefined
    },

    async setSlot(
      threadId: string,
      name: string,
      value: JsonObject | undefined,
      options?: LeaseWriteOptions,
    ): Promise<void> {
      assertThreadId(threadId)
      checkSlotName(name, 'setSlot')
      checkSlotValue(value)
      // Serialised before the lock: a digest of a million archived items is megabytes.
      const text = value === undefined ? undefined : `${JSON.stringify(value)}\n`
      const thread = threadFiles(threadId)
      const path = join(thread.directory, slotFileName(name))
      await locked(thread, async () => {
        await fence(thread, options, 'setSlot')
        try {
          if (text === undefined) {
            await rm(path, { force: true })
            // A thread without a folder had no slot to remove.
            if (durable)
              await syncDirectory(dirname(path)).catch((error: unknown) => {
                if (!isMissing(error)) throw error
              })
            return
          }
          await mkdir(dirname(path), { recursive: true })
          await writeFileAtomic(path, text, durable)
        } catch (error) {
          throw storeFailed('write', path, error)
        }
      })
    },
  }
}
