import type { PanelData, TimelineItem } from '../lib/panel-data'

/** Gaps in the active log's seqs: items compaction moved to the archive (or a rewind). */
function archivedBefore(items: readonly TimelineItem[], index: number) {
  const previous = index === 0 ? 0 : items[index - 1]!.seq
  const gap = items[index]!.seq - previous - 1
  return gap > 0 ? { fromSeq: previous + 1, toSeq: items[index]!.seq - 1, count: gap } : undefined
}

/**
 * The memory timeline: every active item coloured by level, scopes as bands in the gutter (one column
 * per level below the broadest), items outside the current view dimmed, summaries and archived ranges marked.
 */
export function TimelinePanel({ data, error }: { data: PanelData | undefined; error: string | undefined }) {
  if (data === undefined) {
    return (
      <section className="panel timeline" aria-label="Memory timeline">
        <h2>Memory timeline</h2>
        {error ? (
          <p className="error" data-testid="timeline-error">
            {error}
          </p>
        ) : (
          <p className="muted">Loading…</p>
        )}
      </section>
    )
  }
  const bandLevels = data.levels.slice(1)
  const last = data.status.compaction.last
  return (
    <section className="panel timeline" aria-label="Memory timeline">
      <h2>
        Memory timeline{' '}
        <span className="muted small">
          {data.items.length} items · view: {data.level}
        </span>
      </h2>
      <div className="legend small">
        {data.levels.map((level) => (
          <span key={level} className={`chip level-${level}`}>
            {level}
          </span>
        ))}
        <span className="chip dim">outside the view</span>
      </div>
      {last && last.itemsArchived > 0 ? (
        <p className="compaction small" data-testid="timeline-compaction" data-trigger={last.trigger}>
          ⇊ Last compaction ({last.trigger}): {last.itemsArchived} items archived,{' '}
          {last.tokensBefore.toLocaleString('en')} → {last.tokensAfter.toLocaleString('en')} tokens
        </p>
      ) : null}
      {data.items.length === 0 ? (
        <p className="muted small" data-testid="timeline-empty">
          Empty thread: its items appear here as the agent works.
        </p>
      ) : null}
      <ol className="items" data-testid="timeline">
        {data.items.map((item, index) => {
          const archived = archivedBefore(data.items, index)
          const bands = bandLevels.map((level) =>
            data.bands.find(
              (band) =>
                band.level === level && band.fromSeq <= item.seq && item.seq <= (band.toSeq ?? Infinity),
            ),
          )
          return [
            archived ? (
              <li key={`gap-${item.seq}`} className="archived" data-testid="archived-range">
                ⋯ {archived.count} items archived (seq {archived.fromSeq}–{archived.toSeq})
              </li>
            ) : null,
            <li
              key={item.seq}
              className={`item level-${item.level} type-${item.type} ${item.inView ? '' : 'dim'}`}
              data-testid="timeline-item"
              data-level={item.level}
              data-type={item.type}
              data-in-view={item.inView}
            >
              <span className="gutter">
                {bands.map((band, column) => (
                  <span
                    key={bandLevels[column]}
                    className={band ? `band level-${band.level}` : 'band none'}
                    title={band ? `${band.level}: ${band.title}` : undefined}
                  />
                ))}
              </span>
              <span className="seq">{item.seq}</span>
              <span className="kind">{item.kind}</span>
              <span className="text">{item.text}</span>
            </li>,
          ]
        })}
      </ol>
    </section>
  )
}
