import { mkdtempSync, rmSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LanguageModelV4, LanguageModelV4Prompt } from '@ai-sdk/provider'
import {
  loadUIMessages,
  openChatRequest,
  strataMiddleware,
  writeMissedTransitions,
} from '@strata-memory/ai-sdk'
import { createMemory } from '@strata-memory/core'
import { fileStore } from '@strata-memory/store-file'
import {
  convertToModelMessages,
  pruneMessages,
  type UIMessage,
  type UIMessageStreamWriter,
  validateUIMessages,
} from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { agentThreadOperations, applyOperations } from './agent-thread.ts'
import { streamAnswer } from './ai-sdk-answer.ts'
import { type BenchRow, measure, significant } from './harness.ts'
import { targetRow } from './scale-targets.ts'

const TARGET = { bound: 0.5, text: '≤ 0.5× the guide' }
const BASELINE =
  "the persistence guide's route: load the chat file, validateUIMessages, convertToModelMessages, pruneMessages, save the chat file"

/** A writer that keeps nothing: what is measured is the memory's work, not a client. */
const sink = { write() {}, merge() {}, onError: undefined } as unknown as UIMessageStreamWriter<UIMessage>

const userMessage = (turn: number): UIMessage => ({
  id: `route-user-${turn}`,
  role: 'user',
  parts: [{ type: 'text', text: `Question ${turn}` }],
})

/**
 * `route/memory-work`: what a chat route does for memory per request, on a chat of 1k and 10k items
 * in files (fsync off on both sides: the guide's `writeFile` does not sync). Strata, the README's
 * persistence route: `openChatRequest` (the thread held, the request checked against its last turn),
 * `convertToModelMessages` of the one message sent, the middleware's `transformParams` (the message
 * stored, the context built) and stream tap (the answer stored, usage reported), `writeMissedTransitions`
 * and the head the finish part carries, the hold released. The guide (AI SDK "Chatbot Message
 * Persistence"): the chat file read and parsed, `validateUIMessages`, the new message added,
 * `convertToModelMessages` and `pruneMessages` of the whole chat, the answer added and the file saved.
 * The model's own work (the provider's stream) is the same mock on both sides' budget: Strata's side
 * reads it through the tap; the guide's side adds the answer as the finished stream would.
 */
export async function routeRows(sizes: readonly number[], progress: (line: string) => void) {
  const rows: BenchRow[] = []
  const notes: string[] = []
  const model = new MockLanguageModelV4() as LanguageModelV4
  for (const size of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'strata-bench-route-'))
    try {
      const threadId = `bench.route.${size}`
      const writer = createMemory({ store: fileStore({ dir, fsync: false }) })
      await applyOperations(await writer.thread(threadId), agentThreadOperations(size))
      await writer.close()
      // The guide's chat file holds the same conversation, as loadUIMessages gives it.
      const memory = createMemory({ store: fileStore({ dir, fsync: false }) })
      const chatFile = join(dir, `${threadId}.json`)
      const uiMessages = await loadUIMessages(memory, threadId)
      await writeFile(chatFile, JSON.stringify(uiMessages, null, 2))

      let lastSeq = (await memory.store.head((await memory.thread(threadId)).id)).lastSeq
      let strataTurn = 0
      const strata = async () => {
        strataTurn++
        const message = userMessage(strataTurn)
        const chat = await openChatRequest({
          memory,
          body: { id: threadId, message, trigger: 'submit-message', lastSeq },
        })
        try {
          const middleware = strataMiddleware({ memory, hold: chat.hold })
          const modelMessages = await convertToModelMessages([message])
          const prompt = modelMessages.map((entry) => ({
            role: 'user',
            content: [{ type: 'text', text: String((entry.content as { text: string }[])[0]!.text) }],
          })) as LanguageModelV4Prompt
          const params = await middleware.transformParams!({
            type: 'stream',
            params: { prompt, providerOptions: chat.providerOptions },
            model,
          })
          await streamAnswer(middleware, params, model, strataTurn)
          await writeMissedTransitions({ writer: sink, memory, threadId, lastSeq })
          lastSeq = (await memory.store.head(chat.thread.id)).lastSeq
        } finally {
          await chat.hold.release()
        }
      }

      let guideTurn = 0
      const guide = async () => {
        guideTurn++
        const messages = await validateUIMessages({
          messages: JSON.parse(await readFile(chatFile, 'utf8')) as UIMessage[],
        })
        messages.push(userMessage(guideTurn))
        pruneMessages({
          messages: await convertToModelMessages(messages),
          reasoning: 'before-last-message',
          toolCalls: 'before-last-2-messages',
          emptyMessages: 'remove',
        })
        messages.push({
          id: `route-answer-${guideTurn}`,
          role: 'assistant',
          parts: [{ type: 'text', text: `Answer ${guideTurn}: done.` }],
        })
        await writeFile(chatFile, JSON.stringify(messages, null, 2))
      }

      const measurement = await measure({
        strata,
        baseline: guide,
        samples: 11,
        minSampleMs: 5,
        warmupMs: 100,
      })
      // Every request stored its question and its answer, once.
      const thread = await memory.thread(threadId)
      const stored = (await thread.items()).length
      if (stored !== size + 2 * strataTurn) {
        throw new Error(
          `after ${strataTurn} requests the thread holds ${stored} items, expected ${size + 2 * strataTurn}`,
        )
      }
      await memory.close()
      const ratio = measurement.strata / measurement.baseline!
      rows.push(
        targetRow('route/memory-work', { items: size, 'ui-messages': uiMessages.length }, measurement, {
          unit: 'ms',
          baselineName: BASELINE,
          target: TARGET.text,
          within: ratio <= TARGET.bound,
        }),
      )
      notes.push(
        `route/memory-work at ${size.toLocaleString('en-US')} items (${uiMessages.length} UI messages in the guide's file): ` +
          `${significant(measurement.strata)} ms per request vs ${significant(measurement.baseline!)} ms for the guide, ` +
          `ratio ${significant(ratio)} [target ${TARGET.text}: ${ratio <= TARGET.bound ? 'met' : 'NOT met'}]; ` +
          `${strataTurn} Strata requests, ${guideTurn} guide requests.`,
      )
      progress(`ai-sdk: route memory work at ${size.toLocaleString('en-US')} items measured`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  return { rows, notes }
}
