import {
  assertSerializable,
  assertThreadId,
  type ContentQuery,
  type ContentRecord,
  type StoreContentMethods,
} from '@strata-memory/core'
import { checkContentQuery, checkContentRecord } from '@strata-memory/core/store-kit'
import { readContentRecord, writeContentRecord } from './content-files'
import { contentQueries } from './content-query'
import type { FileContext } from './file-context'

/**
 * The file store's content channel: one file per record in the thread's `content/` folder, and a
 * catalog of their fields that queries filter on (content-catalog.ts).
 */
export function fileContent({ threadFiles, durable }: FileContext): StoreContentMethods {
  const queryFolder = contentQueries()
  return {
    async putContent(threadId: string, record: ContentRecord): Promise<void> {
      assertThreadId(threadId)
      checkContentRecord(record)
      assertSerializable(record, 'record')
      await writeContentRecord(threadFiles(threadId).contentDirectory, record, durable)
    },

    async getContent(threadId: string, id: string): Promise<ContentRecord | undefined> {
      assertThreadId(threadId)
      if (typeof id !== 'string' || id === '') return undefined
      return readContentRecord(threadFiles(threadId).contentDirectory, id)
    },

    async queryContent(threadId: string, query: ContentQuery = {}): Promise<ContentRecord[]> {
      assertThreadId(threadId)
      checkContentQuery(query)
      return queryFolder(threadFiles(threadId).contentDirectory, query)
    },
  }
}
