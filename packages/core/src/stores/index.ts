export { type InMemoryStoreOptions, inMemoryStore } from './in-memory-store'
export type {
  AppendOptions,
  ArchiveOptions,
  ContentQuery,
  ContentRecord,
  ReadOptions,
  StoreContentMethods,
  StoreFlags,
  StrataStore,
  StrataStoreBase,
  ThreadHead,
} from './store'
export { STORE_SPECIFICATION_VERSION } from './store'
