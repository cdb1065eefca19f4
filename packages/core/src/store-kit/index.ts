/**
 * `@strata-memory/core/store-kit`: what a store author needs beside the {@link StrataStore} contract
 * (exported from the root entry): the argument checks every store shares, so each raises the same typed
 * error, the content-query semantics, the orders and cursors of the resource methods, the seq searches
 * of a log kept as an array of seqs, the slot checks, and the audit capability's types and shared checks
 * ({@link ThreadAuditor}). An app that only uses stores never imports this.
 */

export { quotedThreadId } from '../items/app-thread-id'
export { checkOptionKeys, type OptionKeys } from '../memory/option-keys'
export { guardedMethods } from '../stores/guarded-pages'
export { checkStoredSize, copyItem } from '../stores/item-copy'
export {
  checkLeaseOptions,
  checkLeaseOwner,
  leaseOfWrite,
  MAX_LEASE_TTL_MS,
  threadBusyError,
} from '../stores/lease-arguments'
export {
  assertResourceId,
  bindingConflictError,
  checkDocumentKey,
  checkDocumentValue,
  checkExpectedResource,
  checkLastAppendAt,
  checkNamespace,
  checkNamespacePrefix,
  checkResourcePageOptions,
  checkVectorQuery,
  checkVectorRecords,
  checkWorkingMemoryArguments,
  compareDocuments,
  compareResourceThreads,
  compareVectors,
  DEFAULT_RESOURCE_PAGE_LIMIT,
  documentAddress,
  encodeResourceCursor,
  MAX_RESOURCE_PAGE_LIMIT,
  namespaceStartsWith,
  pageResourceThreads,
  type ResourceCursorPosition,
  vectorAddress,
  workingMemoryConflictError,
} from '../stores/resource-arguments'
export { seqLowerBound, seqRangeIndexes, seqUpperBound } from '../stores/seq-bounds'
export { shareItemStrings } from '../stores/shared-strings'
export { checkSlotName, checkSlotValue } from '../stores/slot-arguments'
export {
  checkAppendArguments,
  checkAppendItems,
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
export {
  AUDIT_CODES,
  type AuditCode,
  type AuditEntry,
  type AuditOptions,
  type AuditReport,
  type AuditSource,
  type StoreAuditMethods,
} from '../stores/store-audit'
export { type AuditPlace, auditWithRepair, checkAuditOptions, ThreadAuditor } from '../stores/thread-auditor'
