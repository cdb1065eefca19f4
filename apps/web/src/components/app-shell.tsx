'use client'

import { useChat } from '@ai-sdk/react'
import { sendLastMessage } from '@strata-memory/ai-sdk/client'
import { DefaultChatTransport } from 'ai'
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { AppUIMessage } from '../lib/app-ui-message'
import { chatErrorOf, isBehind, isBusy } from '../lib/chat-error'
import type { LoadedChat } from '../lib/chat-load'
import type { ThreadSummary } from '../lib/thread-list'
import { ChatPanel } from './chat-panel'
import { ContextPanel } from './context-panel'
import { StatusPanel } from './status-panel'
import { ThreadList } from './thread-list'
import { TimelinePanel } from './timeline-panel'
import { useChatSync } from './use-chat-sync'
import { usePanel } from './use-panel'

/**
 * The page of one thread. The chat comes from the server (read from the thread); the page sends only
 * its last message, with the last point of the thread it has seen, and resumes a response that was
 * streaming when it loaded. Chat on the left; what the model sees and status in the middle; the
 * timeline on the right.
 */
export function AppShell({
  chat,
  threads,
  model,
}: {
  chat: LoadedChat
  threads: ThreadSummary[]
  model: string
}) {
  const { threadId } = chat
  // The thread's last seq when the page last read it: transitions after it are news for this page.
  const loadedSeq = useRef(chat.lastSeq)
  const transport = useMemo(
    () =>
      new DefaultChatTransport<AppUIMessage>({
        api: '/api/chat',
        // Only the last message, with the last seq the page shows (a page that has seen no answer yet
        // sends the seq it was loaded at).
        prepareSendMessagesRequest: (options) => {
          const request = sendLastMessage(options)
          request.body.lastSeq ??= loadedSeq.current
          return request
        },
      }),
    [],
  )
  // Busy (another tab's answer is on its way) or behind the thread: the message goes back to the
  // composer and the page catches up with the thread.
  const onBusy = useRef<(error: Error) => void>(() => {})
  const { messages, setMessages, sendMessage, regenerate, status, error, clearError, stop } =
    useChat<AppUIMessage>({
      id: threadId,
      transport,
      messages: chat.messages,
      resume: chat.running,
      onError: (failed) => onBusy.current(failed),
    })
  const failure = error === undefined ? undefined : chatErrorOf(error)

  const apply = useCallback(
    (loaded: LoadedChat) => {
      loadedSeq.current = loaded.lastSeq
      setMessages(loaded.messages)
      clearError()
    },
    [setMessages, clearError],
  )
  const sync = useChatSync(threadId, apply)
  const [draft, setDraft] = useState<string | undefined>()
  onBusy.current = (failed) => {
    const failure = chatErrorOf(failed)
    if (!isBusy(failure) && !isBehind(failure)) return
    const last = messages.at(-1)
    if (last?.role === 'user') {
      setDraft(last.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(''))
    }
    void sync.sync()
  }

  const [preview, setPreview] = useState<string | undefined>()
  const [controlsVersion, setControlsVersion] = useState(0)
  const [compacting, setCompacting] = useState(false)
  const [controlError, setControlError] = useState<string | undefined>()
  // Every streamed part (a step, a tool result, a transition) and every status change refreshes the panels.
  const steps = messages.reduce((sum, message) => sum + message.parts.length, 0)
  const version =
    steps * 10 + ['ready', 'submitted', 'streaming', 'error'].indexOf(status) + controlsVersion * 100_000
  const panel = usePanel(threadId, preview, version)
  useEffect(() => {
    if (status === 'ready') setControlsVersion((value) => value + 1)
  }, [status])

  const compact = async () => {
    setCompacting(true)
    setControlError(undefined)
    try {
      const response = await fetch('/api/memory', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ thread: threadId, action: 'compact' }),
      })
      if (!response.ok) {
        const failed = chatErrorOf(new Error(await response.text()))
        setControlError(`Compact now failed: ${failed.message} (${failed.code})`)
      }
    } catch (caught) {
      setControlError(`Compact now failed: ${chatErrorOf(caught).message}`)
    } finally {
      setCompacting(false)
      setControlsVersion((value) => value + 1)
    }
  }

  const send = (text: string) => {
    sync.clearCaughtUp()
    setDraft(undefined)
    void sendMessage({ text })
  }

  return (
    <main>
      <header>
        <h1>Strata</h1>
        <p className="muted small">
          thread <code data-testid="thread-id">{threadId}</code> · model {model}
        </p>
        <nav className="controls" aria-label="Controls">
          <ThreadList threads={threads} current={threadId} />
          <button type="button" onClick={compact} disabled={compacting} data-testid="compact">
            {compacting ? 'Compacting…' : 'Compact now'}
          </button>
          <a href="/" className="button" data-testid="new-thread">
            New thread
          </a>
        </nav>
      </header>
      {controlError ? (
        <p className="error" data-testid="control-error">
          {controlError}
        </p>
      ) : null}
      <div className="layout">
        <ChatPanel
          messages={messages}
          status={status}
          failure={failure}
          sync={sync}
          draft={draft}
          onSend={send}
          onRegenerate={(messageId) => void regenerate({ messageId })}
          onStop={() => {
            // The server's run goes on without the page; Stop asks it to end, then stops reading.
            void fetch(`/api/chat/${encodeURIComponent(threadId)}/stop`, { method: 'POST' })
            void stop()
          }}
        />
        <div className="side">
          <ContextPanel data={panel.data} error={panel.error} onPreview={setPreview} />
          <StatusPanel data={panel.data} />
        </div>
        <TimelinePanel data={panel.data} error={panel.error} />
      </div>
    </main>
  )
}
