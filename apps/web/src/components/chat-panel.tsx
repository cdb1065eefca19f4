'use client'

import type { StrataUIMessage } from '@strata-memory/ai-sdk'
import { type FormEvent, useState } from 'react'
import { chatErrorText } from '../lib/chat-error'

type Part = StrataUIMessage['parts'][number]

const SUGGESTION = 'Build the landing page for Acme Rockets'

/** A tool call, collapsed: its name and state; open it for the input and output. */
function ToolCall({ part }: { part: Part & { type: `tool-${string}` } }) {
  const name = part.type.slice('tool-'.length)
  const { state, input } = part as { state: string; input?: unknown }
  const output = (part as { output?: unknown }).output
  const title =
    (input as { title?: string; path?: string } | undefined)?.title ?? (input as { path?: string })?.path
  return (
    <details className="tool" data-testid="tool-call">
      <summary>
        <code>{name}</code> {title ? <span className="muted">{title}</span> : null}{' '}
        <span className="muted">
          {state === 'output-available' ? '✓' : state === 'output-error' ? '✗' : '…'}
        </span>
      </summary>
      <pre>{JSON.stringify({ input, output }, null, 2).slice(0, 2000)}</pre>
    </details>
  )
}

function PartView({ part }: { part: Part }) {
  if (part.type === 'text') return <p>{part.text}</p>
  if (part.type === 'data-memory-transition') {
    return (
      <div className={`transition level-${part.data.fromLevel}`} data-testid="transition">
        ⤴ {part.data.text}
      </div>
    )
  }
  if (part.type.startsWith('tool-')) return <ToolCall part={part as Part & { type: `tool-${string}` }} />
  return null
}

/** The chat: messages, tool calls collapsed, transitions inline with their user-facing text. */
export function ChatPanel({
  messages,
  status,
  error,
  onSend,
  onStop,
}: {
  messages: StrataUIMessage[]
  status: string
  error: Error | undefined
  onSend: (text: string) => void
  onStop: () => void
}) {
  const [text, setText] = useState('')
  const busy = status === 'submitted' || status === 'streaming'
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const value = text.trim() || SUGGESTION
    setText('')
    onSend(value)
  }
  return (
    <section className="panel chat" aria-label="Chat">
      <h2>Chat</h2>
      <div className="messages" data-testid="messages">
        {messages.length === 0 ? (
          <p className="muted">
            Send “{SUGGESTION}”: the agent plans a project, opens a task per part, works it with tool calls
            and closes it. Watch the timeline and what the model sees.
          </p>
        ) : null}
        {messages.map((message) => (
          <div key={message.id} className={`message ${message.role}`} data-testid={`message-${message.role}`}>
            {message.parts.map((part, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: parts only grow at the end; their position is their identity
              <PartView key={`${message.id}-${index}`} part={part} />
            ))}
          </div>
        ))}
        {error ? (
          <div className="error" data-testid="chat-error">
            {chatErrorText(error)}
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
        {status}
      </p>
    </section>
  )
}
