import type { ContentRecord, Item, JsonObject } from '@strata-memory/core'

/**
 * The JSONL export of a thread (`strata export --format jsonl`): a header line, one line per item in
 * seq order (each exactly as the store reads it, `seq` included), then one line per content record,
 * then the thread's state (when it has one).
 */
export interface ThreadExportHeader {
  format: 'strata-thread'
  version: 1
  threadId: string
  lastSeq: number
  /** True when archived items are included (`--archive`): only then can the export be imported. */
  withArchive: boolean
  /** The archived items' seqs, as ranges. */
  archived: { fromSeq: number; toSeq: number }[]
  /**
   * The resource (user) the thread is bound to, when the store keeps resources: import binds the new
   * thread to it, so it is listed under its resource (Mastra's and Studio's thread lists read that).
   */
  resourceId?: string
}

/** A content record's line in the export. */
export interface ContentLine {
  format: 'strata-content'
  record: ContentRecord
}

/**
 * The thread's state line: core's own keys (levels, cursors, failure marks) and what adapters keep
 * there (the Mastra thread record: its resource, title, metadata and dates).
 */
export interface StateLine {
  format: 'strata-state'
  state: JsonObject
}

/** What an export file holds, parsed. */
export interface ParsedExport {
  header: ThreadExportHeader
  items: Item[]
  records: ContentRecord[]
  state: JsonObject | undefined
}
