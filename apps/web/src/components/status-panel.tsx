import type { PanelData } from '../lib/panel-data'

/** Summaries, facts, archived counts and the last compaction. */
export function StatusPanel({ data }: { data: PanelData | undefined }) {
  if (data === undefined) return null
  const { items, compaction, store, tokens } = data.status
  const last = compaction.last
  return (
    <section className="panel status" aria-label="Status" data-testid="status">
      <h2>Status</h2>
      <dl>
        <dt>Level</dt>
        <dd>
          {data.level}
          {data.scopes.length > 0 ? ` · ${data.scopes.map((scope) => scope.title).join(' › ')}` : ''}
        </dd>
        <dt>Items</dt>
        <dd>
          {items.active} active · <span data-testid="archived-count">{items.archived}</span> archived
        </dd>
        <dt>Summaries</dt>
        <dd>
          {Object.entries(compaction.summaries)
            .map(([tier, { count }]) => `${tier} ${count}`)
            .join(' · ')}
        </dd>
        <dt>Facts</dt>
        <dd>{compaction.facts}</dd>
        <dt>Tokens</dt>
        <dd>
          {tokens.total.toLocaleString('en')} ({tokens.counter})
        </dd>
        <dt>Store</dt>
        <dd>{store.name}</dd>
        <dt>Last compaction</dt>
        <dd data-testid="last-compaction">
          {last
            ? `${last.trigger}: ${last.itemsArchived} archived, ${last.tokensBefore.toLocaleString('en')} → ${last.tokensAfter.toLocaleString('en')} tokens${last.skipped ? ` (${last.skipped})` : ''}${last.warning ? ` (${last.warning})` : ''}`
            : 'none yet'}
        </dd>
      </dl>
    </section>
  )
}
