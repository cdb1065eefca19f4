import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMemory, type Item } from '@strata-memory/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fileStore } from './file-store'

/*
 * A budget compaction on the file store when the disk fills up at any point of it: a small tmpfs,
 * filled to leave a little less room each time, so the compaction runs out of space at a different
 * stage — before its summary, between the summary and the archive, inside the archive's rewrite,
 * after it. Whatever the stage: nothing acknowledged is lost, no turn shows twice in a context, and
 * compacting again once there is room never summarizes the same items a second time.
 */

const TURNS = 10
let mountPoint: string | undefined
let skipped: string | undefined

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'strata-enospc-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'pipe' })
    mountPoint = dir
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    skipped = `cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]}): needs root`
    console.warn(`compaction-out-of-space: skipped — ${skipped}`)
  }
})

afterAll(() => {
  if (mountPoint === undefined) return
  execFileSync('umount', ['-l', mountPoint])
  rmSync(mountPoint, { recursive: true, force: true })
})

// Large enough that no compaction starts on its own: each one here is forced, at a known time.
const budget = { maxContextTokens: 100_000, maxOutputTokens: 500, rawTailTurns: 2 }

/** The user texts of a context, each as often as it shows. */
function userTexts(messages: readonly { role: string; content: unknown }[]): string[] {
  return messages.flatMap((message) => {
    if (message.role !== 'user') return []
    if (typeof message.content === 'string') return [message.content]
    return (message.content as { type: string; text?: string }[]).flatMap((part) =>
      part.type === 'text' && part.text !== undefined ? [part.text] : [],
    )
  })
}

/** Each seq a summary covers, with how many summaries cover it. */
function coverCounts(items: readonly Item[]): Map<number, number> {
  const counts = new Map<number, number>()
  for (const item of items)
    if (item.type === 'summary')
      for (const { fromSeq, toSeq } of item.covers ?? [])
        for (let seq = fromSeq; seq <= toSeq; seq++) counts.set(seq, (counts.get(seq) ?? 0) + 1)
  return counts
}

describe('a budget compaction on the file store that runs out of space', () => {
  it('at every stage: nothing lost, no turn shown twice, no range summarized twice', async (context) => {
    if (mountPoint === undefined) return context.skip(skipped)
    const stages = new Set<string>()
    for (let room = 0; room <= 48 * 1024; room += 4 * 1024) {
      const dir = join(mountPoint, `room-${room}`)
      const filler = join(mountPoint, 'filler')
      const store = fileStore({ dir })
      const memory = createMemory({ store, compaction: { budget } })
      const thread = await memory.thread('chat-1')
      for (let turn = 1; turn <= TURNS; turn++)
        await thread.append([
          { role: 'user', content: `Turn ${turn}: ${'tell me about the harbour and its boats. '.repeat(8)}` },
          { role: 'assistant', content: `Answer ${turn}: ${'the harbour holds many boats. '.repeat(8)}` },
        ])
      const { bavail, bsize } = statfsSync(mountPoint)
      writeFileSync(filler, Buffer.alloc(Math.max(0, bavail * bsize - room)))
      const outcome = await thread.compact({ force: true }).then(
        () => 'resolved',
        (error: { code?: string; message?: string }) =>
          `rejected ${error.code} (${error.message?.slice(0, 160)})`,
      )
      rmSync(filler)
      const active = await store.read('chat-1')
      const archived = await store.readArchive('chat-1')
      const summary = active.find((item) => item.type === 'summary')
      stages.add(
        `${outcome}, summary ${summary === undefined ? 'absent' : 'stored'}, archived ${archived.length}`,
      )

      // Nothing acknowledged lost: every seq of the twenty messages is in the log or the archive.
      const seqs = new Set([...active, ...archived].map((item) => item.seq))
      for (let seq = 1; seq <= TURNS * 2; seq++) expect(seqs.has(seq)).toBe(true)
      // No turn twice, in this process or in a fresh one.
      for (const reader of [
        thread,
        await createMemory({ store: fileStore({ dir }), compaction: { budget } }).thread('chat-1'),
      ]) {
        const shown = userTexts((await reader.context()).messages)
        expect(new Set(shown).size).toBe(shown.length)
      }
      // With room again, a fresh process compacts: no seq is covered by two summaries.
      const again = await createMemory({ store: fileStore({ dir }), compaction: { budget } }).thread('chat-1')
      await again.compact({ force: true })
      const all = [...(await store.read('chat-1')), ...(await store.readArchive('chat-1'))]
      for (const [seq, count] of coverCounts(all)) expect([seq, count]).toEqual([seq, 1])
      await memory.close()
      rmSync(dir, { recursive: true, force: true })
    }
    console.log(`compaction-out-of-space stages seen: ${[...stages].join(' | ')}`)
    // The sweep reached the stages it is for: out of space before the summary, and a summary stored
    // with its archive cut short or done.
    expect([...stages].some((stage) => stage.startsWith('rejected') && stage.includes('absent'))).toBe(true)
    expect([...stages].some((stage) => stage.includes('stored'))).toBe(true)
  })
})
