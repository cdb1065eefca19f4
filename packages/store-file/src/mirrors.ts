import { appendFile, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Item } from '@strata-memory/core'
import { errorCode } from './file-errors'
import { withoutBatchEnd } from './line-format'

/** Mirror files of a thread folder: derived from raw_traces.jsonl, for people, never read back. */
export const EPISODIC_FILE = 'episodic.jsonl'
export const SEMANTIC_FILE = 'semantic.jsonl'
export const SUMMARIES_FOLDER = 'summaries'

/**
 * Writes the readable copies of newly appended compaction items (given with their log lines): episodic summaries as lines of
 * `episodic.jsonl`, facts as lines of `semantic.jsonl` (both in the raw-trace line format), and each
 * short-term summary as `summaries/recent-YYYYMMDD-HHMMSS.md` (UTC, from the item's `ts`). Called
 * after the append is durable; calls `onFailure` per file that could not be written and never throws.
 */
export async function writeMirrors(
  threadDirectory: string,
  items: readonly Item[],
  lines: readonly string[],
  onFailure: (file: string, error: unknown) => void,
): Promise<void> {
  const episodic: string[] = []
  const semantic: string[] = []
  const recent: Item[] = []
  items.forEach((item, index) => {
    if (item.type === 'fact') semantic.push(withoutBatchEnd(lines[index]!))
    else if (item.type === 'summary' && item.tier === 'episodic')
      episodic.push(withoutBatchEnd(lines[index]!))
    else if (item.type === 'summary' && item.tier === 'short-term') recent.push(item)
  })
  const appendLines = async (name: string, lines: string[]) => {
    if (lines.length === 0) return
    const path = join(threadDirectory, name)
    await appendFile(path, `${lines.join('\n')}\n`).catch((error: unknown) => onFailure(path, error))
  }
  await appendLines(EPISODIC_FILE, episodic)
  await appendLines(SEMANTIC_FILE, semantic)
  for (const item of recent) {
    const folder = join(threadDirectory, SUMMARIES_FOLDER)
    await writeRecentSummary(folder, item).catch((error: unknown) => onFailure(folder, error))
  }
}

async function writeRecentSummary(folder: string, item: Item): Promise<void> {
  if (item.type !== 'summary') return
  await mkdir(folder, { recursive: true })
  const time = new Date(Number.isFinite(item.ts) ? item.ts : Date.now())
  const stamp = time.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
  const range = item.range ? `seq ${item.range.fromSeq}–${item.range.toSeq}` : 'unknown'
  const text = [
    `# Short-term summary (seq ${item.seq})`,
    '',
    `- id: ${item.id}`,
    `- time: ${time.toISOString()}`,
    `- level: ${item.level}`,
    `- turn: ${item.turnId}`,
    `- covers: ${range}`,
    '',
    item.text,
    '',
  ].join('\n')
  try {
    await writeFile(join(folder, `recent-${stamp}.md`), text, { flag: 'wx' })
  } catch (error) {
    // Two summaries in one second: the later one carries its seq in the name.
    if (errorCode(error) !== 'EEXIST') throw error
    await writeFile(join(folder, `recent-${stamp}-${item.seq}.md`), text)
  }
}
