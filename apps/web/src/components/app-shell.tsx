'use client'

import { useChat } from '@ai-sdk/react'
import { sendLastMessage } from '@strata-memory/ai-sdk/client'
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai'
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

/** A message's text, for the composer. */
const textOf = (message: AppUIMessage) =>
  message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')

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
  // A failed request leaves the page's copy off the thread (a refused message shown as sent, a
  // regenerated answer taken away): the page reads the chat again from the thread, once no other reply
  // is running, and gives a message the thread did not store back to the composer.
  const onFailure = useRef<(error: Error) => void>(() => {})
  const {
    messages,
    setMessages,
    sendMessage,
    regenerate,
    status,
    error,
    clearError,
    stop,
    addToolApprovalResponse,
  } = useChat<AppUIMessage>({
    id: threadId,
    transport,
    messages: chat.messages,
    resume: chat.running,
    onError: (failed) => onFailure.current(failed),
    // An answered approval sends the answer back: the route runs (or denies) the call and goes on.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  })
  const failure = error === undefined ? undefined : chatErrorOf(error)

  const [draft, setDraft] = useState<string | undefined>()
  const [hasEarlier, setHasEarlier] = useState(chat.hasEarlier)
  const [earlierError, setEarlierError] = useState<string | undefined>()
  const showEarlier = async () => {
    const first = messages[0]
    if (first === undefined) return
    setEarlierError(undefined)
    try {
      const query = new URLSearchParams({ id: threadId, before: first.id })
      const response = await fetch(`/api/chat?${query}`, { cache: 'no-store' })
      if (!response.ok) throw new Error(chatErrorOf(new Error(await response.text())).message)
      const earlier = (await response.json()) as { messages: AppUIMessage[]; hasEarlier: boolean }
      setMessages((current) => [...earlier.messages, ...current])
      setHasEarlier(earlier.hasEarlier)
    } catch (caught) {
      setEarlierError(`Earlier messages could not be loaded: ${(caught as Error).message}`)
    }
  }
  const pending = useRef<AppUIMessage | undefined>(undefined)
  const apply = useCallback(
    (loaded: LoadedChat, { keepError }: { keepError: boolean }) => {
      loadedSeq.current = loaded.lastSeq
      setMessages(loaded.messages)
      setHasEarlier(loaded.hasEarlier)
      const unsent = pending.current
      pending.current = undefined
      if (unsent !== undefined && !loaded.messages.some((message) => message.id === unsent.id)) {
        setDraft(textOf(unsent))
      }
      if (!keepError) clearError()
    },
    [setMessages, clearError],
  )
  const sync = useChatSync(threadId, apply)
  onFailure.current = (failed) => {
    const failure = chatErrorOf(failed)
    const last = messages.at(-1)
    const refused = isBusy(failure) || isBehind(failure)
    // Refused before anything was stored: the message goes back to the composer at once.
    if (refused && last?.role === 'user') setDraft(textOf(last))
    pending.current = !refused && last?.role === 'user' ? last : undefined
    // Busy or behind: the line goes once the page has caught up. Any other error stays on the page.
    void sync.sync({ keepError: !refused })
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
          earlier={{ available: hasEarlier, error: earlierError, show: () => void showEarlier() }}
          onSend={send}
          onRegenerate={(messageId) => void regenerate({ messageId })}
          onApproval={(approval) => void addToolApprovalResponse(approval)}
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
