import { strataErrorFromResponse } from '@strata-memory/ai-sdk/client'
import { StrataError } from '@strata-memory/core'
import { redirect } from 'next/navigation'
import { AppShell } from '../components/app-shell'
import { type LoadedChat, loadChat } from '../lib/chat-load'
import { appMemory, appRuns } from '../lib/memory'
import { modelName } from '../lib/model'
import { listChats, type ThreadSummary } from '../lib/thread-list'

export const dynamic = 'force-dynamic'

/** A chat the page could not open, in words for people, with its code kept for the app. */
function OpenError({ threadId, error }: { threadId: string; error: StrataError }) {
  // Words for people; Strata's own message (for developers) stays in the line's title.
  const { code, message } = strataErrorFromResponse(`${error.code}: ${error.message}`)
  return (
    <main>
      <header>
        <h1>Strata</h1>
        <nav className="controls" aria-label="Controls">
          <a href="/" className="button" data-testid="new-thread">
            New thread
          </a>
        </nav>
      </header>
      <p className="error page-error" data-testid="page-error" data-code={code} title={error.message}>
        The chat “{threadId}” cannot be opened. {message} <span className="code">{code}</span>
      </p>
    </main>
  )
}

/**
 * One page per thread (`/?thread=ID`, a new thread without one): the chat is read from the thread on
 * the server, so any browser opening the URL sees it as it is, with the app's threads to switch to.
 */
export default async function Page({ searchParams }: { searchParams: Promise<{ thread?: string }> }) {
  const { thread } = await searchParams
  if (typeof thread !== 'string' || thread === '') {
    redirect(`/?thread=web-${crypto.randomUUID().slice(0, 8)}`)
  }
  const memory = appMemory()
  let chat: LoadedChat
  let threads: ThreadSummary[]
  try {
    const runs = appRuns()
    ;[chat, threads] = await Promise.all([
      loadChat(memory, thread, runs === undefined ? {} : { runs }),
      listChats(memory),
    ])
  } catch (error) {
    if (!StrataError.isInstance(error)) throw error
    return <OpenError threadId={thread} error={error} />
  }
  return <AppShell key={thread} chat={chat} threads={threads} model={modelName()} />
}
