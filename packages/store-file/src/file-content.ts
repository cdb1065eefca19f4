import {
  assertSerializable,
  assertThreadId,
  type ContentQuery,
  type ContentRecord,
  type StoreContentMethods,
} from '@strata-memory/core'
import {
  checkContentQuery,
  checkContentRecord,
  compareContentNewestFirst,
  matchesContentQuery,
} from '@strata-memory/core/store-kit'
import { readAllContentRecords, readContentRecord, writeContentRecord } from './content-files'
import type { FileContext } from './file-context'

/** The file store's content channel: one file per record in the thread's `content/` folder. */
export function fileContent({ threadFiles, durable }: FileContext): StoreContentMethods {
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
      const records = await readAllContentRecords(threadFiles(threadId).contentDirectory)
      const matches = records.filter((record) => matchesContentQuery(record, query))
      matches.sort(compareContentNewestFirst)
      return matches.slice(0, query.limit ?? matches.length)
    },
  }
}
