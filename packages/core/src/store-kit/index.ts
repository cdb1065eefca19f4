/**
 * `@strata-memory/core/store-kit`: what a store author needs beside the {@link StrataStore} contract
 * (exported from the root entry): the argument checks every store shares, so each raises the same typed
 * error, and the content-query semantics. An app that only uses stores never imports this.
 */

export {
  checkLeaseOptions,
  checkLeaseOwner,
  leaseOfWrite,
  MAX_LEASE_TTL_MS,
  threadBusyError,
} from '../stores/lease-arguments'
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
  isPlainObject,
  matchesContentQuery,
} from '../stores/store-arguments'
