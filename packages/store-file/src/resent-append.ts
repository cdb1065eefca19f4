import type { Item } from '@strata-memory/core'
import { seqLowerBound, seqUpperBound } from '@strata-memory/core/store-kit'
import { itemFromLogLine, type PreparedLine, sequenceLogLine, withoutBatchEnd } from './line-format'
import type { ThreadView } from './thread-files'

/** The stored lines of seqs `from` to `to` in the active log, read at once (see ThreadView.activeLines). */
function activeLinesOf(view: ThreadView, from: number, to: number): Map<number, string> {
  const start = seqLowerBound(view.activeSeqs, from)
  const end = seqUpperBound(view.activeSeqs, to)
  const lines = view.activeLines(start, end)
  return new Map(lines.map((line, index) => [view.activeSeqs[start + index]!, line]))
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
  const active = activeLinesOf(view, expectedSeq + 1, expectedSeq + count)
  const items: Item[] = []
  for (let index = 0; index < count; index++) {
    const seq = expectedSeq + index + 1
    const line = active.get(seq) ?? (await archivedLine(seq))
    const sent = sequenceLogLine(prepared[index]!, seq, batchEnd)
    if (line === undefined || withoutBatchEnd(line) !== withoutBatchEnd(sent)) return undefined
    items.push(itemFromLogLine(line))
  }
  return items
}
