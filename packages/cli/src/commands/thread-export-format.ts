import type { ContentRecord, Item } from '@strata-memory/core'

/**
 * The JSONL export of a thread (`strata export --format jsonl`): a header line, one line per item in
 * seq order (each exactly as the store reads it, `seq` included), then one line per content record.
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
}

/** A content record's line in the export. */
export interface ContentLine {
  format: 'strata-content'
  record: ContentRecord
}

/** What an export file holds, parsed. */
export interface ParsedExport {
  header: ThreadExportHeader
  items: Item[]
  records: ContentRecord[]
}
