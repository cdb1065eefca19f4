import type { ThreadSummary } from '../lib/thread-list'

/** The app's threads, as a menu of links (any thread opens by its URL, on any browser). */
export function ThreadList({ threads, current }: { threads: ThreadSummary[]; current: string }) {
  return (
    <details className="threads" data-testid="thread-list">
      <summary className="button">Threads ({threads.length})</summary>
      <ol>
        {threads.length === 0 ? (
          <li className="muted small">No threads yet: send a message to start one.</li>
        ) : null}
        {threads.map((thread) => (
          <li key={thread.id} className={thread.id === current ? 'current' : undefined}>
            <a
              href={`/?thread=${encodeURIComponent(thread.id)}`}
              data-testid="thread-link"
              data-thread={thread.id}
            >
              {thread.title}
            </a>
            <span className="muted small"> {thread.id}</span>
          </li>
        ))}
      </ol>
    </details>
  )
}
