'use client'

import type { MemoryCompactionData } from '@strata-memory/ai-sdk'
import { type FormEvent, useEffect, useState } from 'react'
import type { AppUIMessage } from '../lib/app-ui-message'
import { type ChatError, isBehind, isBusy } from '../lib/chat-error'

type Part = AppUIMessage['parts'][number]
type ToolPart = Extract<Part, { type: 'dynamic-tool' }> | Extract<Part, { type: `tool-${string}` }>

const SUGGESTION = 'Build the landing page for Acme Rockets'

const isToolPart = (part: Part): part is ToolPart =>
  part.type === 'dynamic-tool' || part.type.startsWith('tool-')

/** What the page does with a tool call awaiting approval: approve it or deny it. */
export type OnApproval = (approval: { id: string; approved: boolean; reason?: string }) => void

/** Approve / Deny for a call that waits for a person (a tool with `needsApproval`). */
function ApprovalControl({ id, name, onApproval }: { id: string; name: string; onApproval: OnApproval }) {
  return (
    <div className="approval" data-testid="approval" data-tool={name}>
      <span>
        The agent wants to run <code>{name}</code>.
      </span>{' '}
      <button type="button" onClick={() => onApproval({ id, approved: true })} data-testid="approve">
        Approve
      </button>{' '}
      <button
        type="button"
        onClick={() => onApproval({ id, approved: false, reason: 'Denied on the page' })}
        data-testid="deny"
      >
        Deny
      </button>
    </div>
  )
}

const STATE_MARKS: Record<string, string> = {
  'output-available': '✓',
  'output-error': '✗',
  'output-denied': 'denied',
  'approval-requested': 'awaiting approval',
  'approval-responded': '…',
}

/** A tool call, collapsed: its name and state; open it for the input and output. */
function ToolCall({ part, onApproval }: { part: ToolPart; onApproval: OnApproval }) {
  const name = part.type === 'dynamic-tool' ? part.toolName : part.type.slice('tool-'.length)
  const { state, input } = part as { state: string; input?: unknown }
  const approval = (part as { approval?: { id: string } }).approval
  if (state === 'approval-requested' && approval !== undefined) {
    return <ApprovalControl id={approval.id} name={name} onApproval={onApproval} />
  }
  const output = (part as { output?: unknown }).output
  const errorText = (part as { errorText?: string }).errorText
  const fields = input as { title?: string; path?: string } | undefined
  const title = fields?.title ?? fields?.path
  return (
    <details className="tool" data-testid="tool-call" data-tool={name} data-state={state}>
      <summary>
        <code>{name}</code> {title ? <span className="muted">{title}</span> : null}{' '}
        <span className="muted">{STATE_MARKS[state] ?? '…'}</span>
      </summary>
      <pre>
        {JSON.stringify({ input, output, ...(errorText ? { error: errorText } : {}) }, null, 2).slice(
          0,
          2000,
        )}
      </pre>
    </details>
  )
}

const TRIGGERS: Record<string, string> = { budget: 'the input budget filled up', manual: 'asked for' }

/** A compaction in words: why, and what it moved out of what the model is sent. */
function compactionText(data: MemoryCompactionData): string {
  const why = TRIGGERS[data.trigger] ?? data.trigger
  return `Memory compacted (${why}): ${data.itemsArchived} older items summarized and archived, ${data.tokensBefore.toLocaleString('en')} → ${data.tokensAfter.toLocaleString('en')} tokens.`
}

function PartView({ part, onApproval }: { part: Part; onApproval: OnApproval }) {
  if (part.type === 'text') return <p>{part.text}</p>
  if (part.type === 'reasoning') return <p className="muted small">{part.text}</p>
  if (part.type === 'data-memory-transition') {
    return (
      <div className={`transition level-${part.data.fromLevel}`} data-testid="transition">
        ⤴ {part.data.text}
      </div>
    )
  }
  if (part.type === 'data-memory-compaction') {
    return (
      <div className="compaction" data-testid="compaction" data-trigger={part.data.trigger} data-id={part.id}>
        ⇊ {compactionText(part.data)}
      </div>
    )
  }
  if (isToolPart(part)) return <ToolCall part={part} onApproval={onApproval} />
  return null
}

/** The line under the chat for a failed request: words for people, the code kept beside them. */
function FailureLine({ failure, syncing }: { failure: ChatError; syncing: boolean }) {
  if (isBusy(failure) || isBehind(failure)) {
    return (
      <div className="busy" data-testid="chat-busy" data-code={failure.code}>
        {failure.message}{' '}
        <span className="muted">Your message was not sent; it is back in the box below.</span>
        {syncing ? <span className="muted"> The chat updates when the other reply is done…</span> : null}
      </div>
    )
  }
  return (
    <div className="error" data-testid="chat-error" data-code={failure.code}>
      {failure.message} <span className="code">{failure.code}</span>
    </div>
  )
}

/** The chat: messages, tool calls collapsed, transitions and compactions inline with their text. */
export function ChatPanel({
  messages,
  status,
  failure,
  sync,
  draft,
  earlier,
  onSend,
  onRegenerate,
  onStop,
  onApproval,
}: {
  messages: AppUIMessage[]
  status: string
  failure: ChatError | undefined
  sync: { syncing: boolean; caughtUp: boolean; error: string | undefined }
  draft: string | undefined
  /** Turns before the first message shown: whether there are, and how to show them. */
  earlier: { available: boolean; error: string | undefined; show: () => void }
  onSend: (text: string) => void
  onRegenerate: (messageId: string) => void
  onStop: () => void
  /** Answers a tool call awaiting approval; the page then sends the answer back. */
  onApproval: OnApproval
}) {
  const [text, setText] = useState('')
  useEffect(() => {
    if (draft !== undefined) setText(draft)
  }, [draft])
  const busy = status === 'submitted' || status === 'streaming'
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const value = text.trim() || SUGGESTION
    setText('')
    onSend(value)
  }
  const last = messages.at(-1)
  return (
    <section className="panel chat" aria-label="Chat">
      <h2>Chat</h2>
      <div className="messages" data-testid="messages">
        {earlier.available ? (
          <button type="button" className="earlier small" onClick={earlier.show} data-testid="show-earlier">
            Show earlier messages
          </button>
        ) : null}
        {earlier.error ? <p className="error small">{earlier.error}</p> : null}
        {messages.length === 0 ? (
          <p className="muted" data-testid="chat-empty">
            Send “{SUGGESTION}”: the agent plans a project, opens a task per part, works it with tool calls
            and closes it. Watch the timeline and what the model sees.
          </p>
        ) : null}
        {messages.map((message) => (
          <div key={message.id} className={`message ${message.role}`} data-testid={`message-${message.role}`}>
            {message.parts.map((part, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: parts only grow at the end; their position is their identity
              <PartView key={`${message.id}-${index}`} part={part} onApproval={onApproval} />
            ))}
            {message === last && message.role === 'assistant' && !busy ? (
              <button
                type="button"
                className="regenerate small"
                onClick={() => onRegenerate(message.id)}
                data-testid="regenerate"
              >
                ↻ Regenerate
              </button>
            ) : null}
          </div>
        ))}
        {failure ? <FailureLine failure={failure} syncing={sync.syncing} /> : null}
        {sync.caughtUp && !failure ? (
          <div className="busy" data-testid="chat-caught-up">
            The other answer is done and shown above. Send your message again when you are ready.
          </div>
        ) : null}
        {sync.error ? (
          <div className="error" data-testid="chat-sync-error">
            {sync.error}
          </div>
        ) : null}
      </div>
      <form onSubmit={submit} className="composer">
        <input
          aria-label="Message"
          value={text}
          placeholder={SUGGESTION}
          onChange={(event) => setText(event.target.value)}
          disabled={busy}
        />
        {busy ? (
          <button type="button" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button type="submit" data-testid="send">
            Send
          </button>
        )}
      </form>
      <p className="muted small" data-testid="chat-status">
        {failure && (isBusy(failure) || isBehind(failure)) ? 'busy' : status}
      </p>
    </section>
  )
}
