export { fileStore } from './file-store'
export type { FileStoreEvent, FileStoreOptions } from './file-store-options'
export type { PendingReason } from './log-file'
export type { LockHolder } from './thread-lock'
