'use client'

import { useChat } from '@ai-sdk/react'
import type { StrataUIMessage } from '@strata-memory/ai-sdk'
import { DefaultChatTransport } from 'ai'
import { useEffect, useMemo, useState } from 'react'
import { ChatPanel } from './chat-panel'
import { ContextPanel } from './context-panel'
import { StatusPanel } from './status-panel'
import { TimelinePanel } from './timeline-panel'
import { usePanel } from './use-panel'

/** Where the browser keeps a thread's chat, so a reload continues it (the route re-sends it whole). */
const chatKey = (threadId: string) => `strata-web.chat.${threadId}`

/** The page, once the chat kept in the browser for this thread is read. */
export function AppShell({ threadId, model }: { threadId: string; model: string }) {
  const [saved, setSaved] = useState<StrataUIMessage[] | undefined>()
  useEffect(() => {
    try {
      setSaved(JSON.parse(localStorage.getItem(chatKey(threadId)) ?? '[]') as StrataUIMessage[])
    } catch {
      setSaved([])
    }
  }, [threadId])
  if (saved === undefined) return <main className="muted">Loading…</main>
  return <Page threadId={threadId} model={model} saved={saved} />
}

/** Chat on the left; what the model sees and status in the middle; the timeline on the right. */
function Page({ threadId, model, saved }: { threadId: string; model: string; saved: StrataUIMessage[] }) {
  const transport = useMemo(() => new DefaultChatTransport<StrataUIMessage>({ api: '/api/chat' }), [])
  const { messages, sendMessage, status, error, stop } = useChat<StrataUIMessage>({
    id: threadId,
    transport,
    messages: saved,
  })
  useEffect(() => {
    if (status === 'ready' && messages.length > 0) {
      localStorage.setItem(chatKey(threadId), JSON.stringify(messages))
    }
  }, [status, messages, threadId])
  const [preview, setPreview] = useState<string | undefined>()
  const [controlsVersion, setControlsVersion] = useState(0)
  const [compacting, setCompacting] = useState(false)
  // Every streamed part (a step, a tool result, a transition) and every status change refreshes the panels.
  const steps = messages.reduce((sum, message) => sum + message.parts.length, 0)
  const version =
    steps * 10 + ['ready', 'submitted', 'streaming', 'error'].indexOf(status) + controlsVersion * 100_000
  const { data, error: panelError } = usePanel(threadId, preview, version)
  useEffect(() => {
    if (status === 'ready') setControlsVersion((value) => value + 1)
  }, [status])

  const compact = async () => {
    setCompacting(true)
    try {
      await fetch('/api/memory', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ thread: threadId, action: 'compact' }),
      })
    } finally {
      setCompacting(false)
      setControlsVersion((value) => value + 1)
    }
  }

  return (
    <main>
      <header>
        <h1>Strata</h1>
        <p className="muted small">
          thread <code data-testid="thread-id">{threadId}</code> · model {model}
        </p>
        <nav className="controls" aria-label="Controls">
          <button type="button" onClick={compact} disabled={compacting} data-testid="compact">
            {compacting ? 'Compacting…' : 'Compact now'}
          </button>
          <a href="/" className="button" data-testid="new-thread">
            New thread
          </a>
        </nav>
      </header>
      <div className="layout">
        <ChatPanel
          messages={messages}
          status={status}
          error={error}
          onSend={(text) => void sendMessage({ text })}
          onStop={() => void stop()}
        />
        <div className="side">
          {panelError ? <p className="error">{panelError}</p> : null}
          <ContextPanel data={data} onPreview={setPreview} />
          <StatusPanel data={data} />
        </div>
        <TimelinePanel data={data} />
      </div>
    </main>
  )
}
