export { type InMemoryStoreOptions, inMemoryStore } from './in-memory-store'
export type {
  AppendOptions,
  ArchiveOptions,
  ContentQuery,
  ContentRecord,
  ReadOptions,
  StoreFlags,
  StrataStore,
  ThreadHead,
} from './store'
export {
  checkAppendArguments,
  checkArchiveOptions,
  checkContentQuery,
  checkContentRecord,
  checkExpectedSeq,
  checkLimit,
  checkReadOptions,
  checkSeq,
  checkState,
  compareContentNewestFirst,
  matchesContentQuery,
} from './store-arguments'
