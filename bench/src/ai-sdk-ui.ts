import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { loadUIMessages, writeMissedTransitions } from '@strata-memory/ai-sdk'
import { createMemory } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import { type UIMessage, type UIMessageStreamWriter, validateUIMessages } from 'ai'
import { agentThreadOperations, applyOperations } from './agent-thread.ts'
import { type BenchRow, measure, rowOf, significant } from './harness.ts'

const LOAD_BASELINE = "the persistence guide's loadChat (read the JSON file, parse, validateUIMessages)"
const MISSED_BASELINE = "writeMissedTransitions with the chat's messages (reads the active log)"
/** No issue states a target for these rows; each row says so. */
const NO_TARGET = 'none stated'

/** A writer that keeps nothing: what is measured is the reading, not a client. */
const sink = { write() {}, merge() {}, onError: undefined } as unknown as UIMessageStreamWriter<UIMessage>

/**
 * `load/ui-messages`: loading a chat of 1k and 10k items for a page on a server whose memory is open
 * (the recipe's module-level memory, a file store), against the AI SDK persistence guide's `loadChat`
 * on the same conversation (the UI messages `loadUIMessages` gave, written as the guide's JSON file);
 * `load/ui-messages-cold`: the same from a fresh memory, the thread opened from its files first. `ui/missed-transitions`: the
 * per-request `writeMissedTransitions({ lastSeq })` on an open thread whose page is one turn behind,
 * against the same with the chat's messages.
 */
export async function uiRows(sizes: readonly number[], progress: (line: string) => void) {
  const rows: BenchRow[] = []
  const notes: string[] = []
  const missed: Record<number, number> = {}
  for (const size of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'strata-bench-ui-'))
    try {
      const threadId = `bench.ui.${size}`
      const writer = createMemory({ store: fileStore({ dir }) })
      const thread = await writer.thread(threadId)
      await applyOperations(thread, agentThreadOperations(size))
      await writer.close()
      const messages = await loadUIMessages(createMemory({ store: fileStore({ dir }) }), threadId)
      const chatFile = join(dir, `${threadId}.json`)
      writeFileSync(chatFile, JSON.stringify(messages, null, 2))
      const loadChat = async () =>
        validateUIMessages({ messages: JSON.parse(await readFile(chatFile, 'utf8')) as UIMessage[] })
      // A server's memory, open across requests as the recipe's module-level `memory` is.
      const server = createMemory({ store: fileStore({ dir }) })
      const load = () => loadUIMessages(server, threadId)
      // A fresh process per page load: the thread opened from its files first.
      const coldLoad = async () => {
        const memory = createMemory({ store: fileStore({ dir }) })
        const loaded = await loadUIMessages(memory, threadId)
        await memory.close()
        return loaded
      }
      const loaded = await load()
      // The same conversation both ways (key order aside: the guide's zod parse reorders keys).
      if (!isDeepStrictEqual(loaded, await loadChat()))
        throw new Error('loadUIMessages and loadChat disagree')
      const measurement = await measure({ strata: load, baseline: loadChat, samples: 11, warmupMs: 100 })
      rows.push(
        rowOf(
          'load/ui-messages',
          { items: size, messages: messages.length, target: NO_TARGET },
          measurement,
          {
            baselineName: LOAD_BASELINE,
          },
        ),
      )
      const cold = await measure({ strata: coldLoad, baseline: loadChat, samples: 7, warmupMs: 100 })
      rows.push(
        rowOf('load/ui-messages-cold', { items: size, messages: messages.length, target: NO_TARGET }, cold, {
          baselineName: LOAD_BASELINE,
        }),
      )
      await server.close()
      notes.push(
        `load/ui-messages at ${size.toLocaleString('en-US')} items (${messages.length} UI messages): ` +
          `${significant(measurement.strata)} ms on the server's open memory, ${significant(cold.strata)} ms opening the thread from its files first, ` +
          `vs ${significant(measurement.baseline!)} ms for loadChat (ratios ${significant(measurement.ratio!)} and ${significant(cold.ratio!)}).`,
      )

      // Per request: a page one turn behind (its last seq a few items back), on an open thread.
      const memory = createMemory({ store: fileStore({ dir }) })
      const open = await memory.thread(threadId)
      const items = await open.items()
      const lastSeq = items.at(-6)!.seq
      const perRequest = () => writeMissedTransitions({ writer: sink, memory, threadId, lastSeq })
      const withMessages = () => writeMissedTransitions({ writer: sink, memory, threadId, messages })
      const perCall = await measure({
        strata: perRequest,
        baseline: withMessages,
        samples: 11,
        warmupMs: 100,
      })
      missed[size] = perCall.strata
      rows.push(
        rowOf('ui/missed-transitions', { items: size, target: NO_TARGET }, perCall, {
          baselineName: MISSED_BASELINE,
        }),
      )
      await memory.close()
      progress(`ai-sdk: UI reads at ${size.toLocaleString('en-US')} items measured`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  const [small, large] = sizes
  if (small !== undefined && large !== undefined) {
    notes.push(
      `writeMissedTransitions({ lastSeq }) per request: ${significant(missed[small]!)} ms at ${small.toLocaleString('en-US')} items, ` +
        `${significant(missed[large]!)} ms at ${large.toLocaleString('en-US')} (×${significant(missed[large]! / missed[small]!)}).`,
    )
  }
  return { rows, notes }
}
