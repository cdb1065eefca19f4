export { type InMemoryStoreOptions, inMemoryStore } from './in-memory-store'
export type {
  AppendOptions,
  ArchiveOptions,
  ContentQuery,
  ContentRecord,
  LeaseGrant,
  LeaseOptions,
  LeaseWriteOptions,
  ReadOptions,
  StoreContentMethods,
  StoreFlags,
  StoreLeaseMethods,
  StoreSpecificationVersion,
  StrataStore,
  StrataStoreBase,
  ThreadHead,
} from './store'
export { STORE_SPECIFICATION_VERSION } from './store'
