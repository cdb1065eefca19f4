'use client'

import { useCallback, useEffect, useRef, useState } from 'react'
import type { LoadedChat } from '../lib/chat-load'

/** How often a page that fell behind asks whether the other answer is done, and for how long. */
const POLL_MS = 800
const POLL_LIMIT_MS = 180_000

/**
 * Catching up with the thread: after another tab's or device's request held the chat, the page
 * waits until no response is streaming on it, then takes the chat as the thread holds it
 * (`GET /api/chat?id=…`). `caughtUp` is true once it did after a busy chat, until the next send;
 * `keepError` keeps the failure's line on the page (an error that is not about another reply).
 */
export function useChatSync(
  threadId: string,
  apply: (chat: LoadedChat, options: { keepError: boolean }) => void,
) {
  const [syncing, setSyncing] = useState(false)
  const [caughtUp, setCaughtUp] = useState(false)
  const [error, setError] = useState<string | undefined>()
  const active = useRef(false)

  const sync = useCallback(
    async ({ keepError }: { keepError: boolean }) => {
      if (active.current) return
      active.current = true
      setSyncing(true)
      setCaughtUp(false)
      setError(undefined)
      try {
        const deadline = Date.now() + POLL_LIMIT_MS
        for (;;) {
          const response = await fetch(`/api/chat?id=${encodeURIComponent(threadId)}`, { cache: 'no-store' })
          const body = (await response.json()) as LoadedChat | { error: { code: string; message: string } }
          if ('error' in body) throw new Error(`${body.error.message} (${body.error.code})`)
          if (!body.running || Date.now() > deadline) {
            apply(body, { keepError })
            setCaughtUp(!keepError)
            return
          }
          await new Promise((resolve) => setTimeout(resolve, POLL_MS))
        }
      } catch (caught) {
        setError(`The chat could not be reloaded: ${(caught as Error).message}`)
      } finally {
        active.current = false
        setSyncing(false)
      }
    },
    [threadId, apply],
  )

  useEffect(
    () => () => {
      active.current = false
    },
    [],
  )

  return { sync, syncing, caughtUp, clearCaughtUp: () => setCaughtUp(false), error }
}
