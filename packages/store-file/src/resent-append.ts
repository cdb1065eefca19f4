import type { Item } from '@strata-memory/core'
import { seqLowerBound } from '@strata-memory/core/store-kit'
import { itemFromLogLine, type PreparedLine, sequenceLogLine, withoutBatchEnd } from './line-format'
import type { ThreadView } from './thread-files'

/** The stored line of `seq` in the active log, if any. */
function activeLineOf(view: ThreadView, seq: number): string | undefined {
  const index = seqLowerBound(view.activeSeqs, seq)
  return view.activeSeqs[index] === seq ? view.activeLines[index] : undefined
}

/**
 * The items of an append already stored exactly as sent at the seqs it asked for: the same append
 * sent again after its reply was lost or its call timed out (`timeoutMs`). Returns them as stored, so
 * the re-send is acknowledged instead of refused or written twice; undefined for anything else.
 */
export async function storedResend(
  view: ThreadView,
  prepared: readonly PreparedLine[],
  expectedSeq: number,
  archivedLine: (seq: number) => Promise<string | undefined>,
): Promise<Item[] | undefined> {
  const count = prepared.length
  if (count === 0 || view.lastSeq < expectedSeq + count) return undefined
  const batchEnd = count > 1 ? expectedSeq + count : undefined
  const items: Item[] = []
  for (let index = 0; index < count; index++) {
    const seq = expectedSeq + index + 1
    const line = activeLineOf(view, seq) ?? (await archivedLine(seq))
    const sent = sequenceLogLine(prepared[index]!, seq, batchEnd)
    if (line === undefined || withoutBatchEnd(line) !== withoutBatchEnd(sent)) return undefined
    items.push(itemFromLogLine(line))
  }
  return items
}
