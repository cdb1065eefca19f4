export { type ContendedRequestsReport, expectRequestsOneAtATime } from './contended-requests'
export { describeContentChannel, fetchMessages, makePage } from './content-channel-suite'
export {
  FIXTURE_BASE_TS,
  type MakeItemsOptions,
  type MessageItemOverrides,
  makeContentRecord,
  makeEveryItemType,
  makeFactItem,
  makeItems,
  makeMessageItem,
  makeSummaryItem,
  makeTransitionItem,
  withSeqs,
} from './fixtures'
export { describeStoreConformance, type StoreConformanceOptions } from './store-conformance'
export { expectThreadFree, type StoredThread, storedThread } from './stored-thread'
export { type TestEmbedder, type TestEmbedderOptions, testEmbedder } from './test-embedder'
export {
  agentTurn,
  countingStore,
  describeThreadOpen,
  type StoreReads,
  type StoreWrites,
  storeWithoutDigest,
  threadReading,
} from './thread-open-suite'
export { describeThreadRewind, itemTexts } from './thread-rewind-suite'
