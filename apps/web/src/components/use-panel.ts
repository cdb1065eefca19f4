'use client'

import { useCallback, useEffect, useRef, useState } from 'react'
import type { PanelData } from '../lib/panel-data'

/**
 * The panels' data for a thread, fetched again whenever `version` changes (a streamed step, a
 * control), with at most one request in flight; `preview` picks the level the context panel shows.
 */
export function usePanel(threadId: string, preview: string | undefined, version: number) {
  const [data, setData] = useState<PanelData | undefined>()
  const [error, setError] = useState<string | undefined>()
  const busy = useRef(false)
  const again = useRef(false)

  const load = useCallback(async () => {
    if (busy.current) {
      again.current = true
      return
    }
    busy.current = true
    try {
      do {
        again.current = false
        const query = new URLSearchParams({ thread: threadId })
        if (preview !== undefined) query.set('level', preview)
        const response = await fetch(`/api/memory?${query}`, { cache: 'no-store' })
        const body = (await response.json().catch(() => ({
          error: { code: `HTTP_${response.status}`, message: 'The panels got an answer that is not JSON.' },
        }))) as PanelData | { error: { code: string; message: string } }
        if ('error' in body) setError(`The panels could not load: ${body.error.message} (${body.error.code})`)
        else {
          setData(body)
          setError(undefined)
        }
      } while (again.current)
    } catch (caught) {
      setError(`The panels could not load: ${(caught as Error).message}`)
    } finally {
      busy.current = false
    }
  }, [threadId, preview])

  useEffect(() => {
    void version
    void load()
  }, [load, version])

  return { data, error, reload: load, setData }
}
