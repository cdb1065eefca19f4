import type { ProcessorStreamWriter } from '@mastra/core/processors'
import type { ThreadHold } from '@strata-memory/core'
import type { MemoryTransitionData } from '../messages/db-messages'
import type { MastraPrompt } from '../messages/prompt-messages'
import type { RunContext } from './run-context'

/** What the processor remembers of one agent run, in Mastra's per-request processor state. */
export interface RunState {
  /** How many conversation messages of the run's prompt are stored. */
  stored?: number
  /** The run's Strata thread id, once known. */
  threadId?: string
  /** The ids of the run's Mastra messages, claimed for the run. */
  messageIds?: Set<string>
  /** Transitions of the run's thread not yet written to the stream. */
  transitions?: MemoryTransitionData[]
  /** Stops listening to transitions. */
  stopListening?: () => void
  /** The tool definitions the current step sends, as the provider receives them (see `processInputStep`). */
  toolDefinitions?: string
  /** The run's hold on its thread, taken before anything is stored (null: the store has no lease). */
  hold?: Promise<ThreadHold | undefined>
  /** The thread the run holds. */
  heldThreadId?: string
  /** The semantic recall of the run's request, computed once per request. */
  recalled?: { request: string; text: string | undefined }
  /** Why the run may not go on (its thread is busy), thrown at its first step. */
  refused?: unknown
  /** The model call's error, from the stream's `error` part: the run failed after its request was stored. */
  modelError?: { error: unknown }
  /** The run has stored its request (its first step's store): a retried first step stores only what is new. */
  requestStored?: boolean
  /** The run ended at its `error` part (marked, thread given back): its result phase has nothing left to do. */
  ended?: boolean
  /** The messages the run was given as Mastra's `context`: shown, not stored (see `RunContext`). */
  context?: RunContext
  /** The run's abort signal (from processInput): an aborted run gives its thread back. */
  abortSignal?: AbortSignal
  /** Mastra's ids of the answers whose first step is stored with it (see `responseId`). */
  answerIds?: Set<string>
}

/**
 * Writes the transitions a run's thread went through (a scope tool closed a task, an automatic
 * transition) to the stream as transient `data-memory-transition` chunks: UIs show them while the
 * answer streams; Strata has stored them already, so Mastra need not.
 */
export async function flushTransitions(run: RunState, writer: ProcessorStreamWriter | undefined) {
  const pending = run.transitions?.splice(0) ?? []
  if (writer === undefined) return
  for (const data of pending) await writer.custom({ type: 'data-memory-transition', data, transient: true })
}

/** The text of the prompt's last user message: what semantic recall looks for. */
export function requestText(prompt: MastraPrompt): string {
  for (let index = prompt.length - 1; index >= 0; index--) {
    const message = prompt[index]!
    if (message.role !== 'user') continue
    return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
  }
  return ''
}
