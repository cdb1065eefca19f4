import type { ContextStats } from '@strata-memory/core'
import type { PanelData } from '../lib/panel-data'

const percent = (ratio: number) => `${Math.round(ratio * 100)}%`
const tokens = (count: number) => count.toLocaleString('en')

/**
 * The token meter with its legend: what the next call sends, what the thread holds in all, and the
 * input budget, on one scale (the largest of them). An empty thread (the system prompt alone) reads
 * as empty, not as a full bar at 0% saved.
 */
function Meter({ stats, empty }: { stats: ContextStats; empty: boolean }) {
  if (empty || stats.totalTokens === 0) {
    return (
      <div className="meter empty" data-testid="meter" data-saved-ratio={0}>
        <p className="small muted" data-testid="meter-empty">
          Empty thread: nothing stored, nothing sent yet. The meter fills in with the first message.
        </p>
      </div>
    )
  }
  const budget = stats.inputBudget
  const scale = Math.max(stats.totalTokens, stats.contextTokens, budget ?? 0)
  const width = (count: number) => `${(count / scale) * 100}%`
  return (
    <div className="meter" data-testid="meter" data-saved-ratio={stats.savedRatio}>
      <div className="bar" aria-hidden="true">
        <div className="thread" style={{ width: width(stats.totalTokens) }} />
        <div className="fill" style={{ width: width(stats.contextTokens) }} />
        {budget ? <div className="budget" style={{ left: width(budget) }} /> : null}
      </div>
      <ul className="meter-legend small" data-testid="meter-legend">
        <li>
          <span className="swatch sent" /> sent: {tokens(stats.contextTokens)} tokens in the next call
        </li>
        <li>
          <span className="swatch in-thread" /> in thread: {tokens(stats.totalTokens)} tokens, everything
          stored
        </li>
        {budget ? (
          <li>
            <span className="swatch budget-mark" /> budget: {tokens(budget)} tokens a call may send
          </li>
        ) : null}
      </ul>
      <p className="small">
        <strong data-testid="saved">{percent(stats.savedRatio)} saved</strong>{' '}
        <span className="muted">({tokens(stats.savedTokens)} tokens of the thread not sent)</span>
      </p>
    </div>
  )
}

/** What the model sees: the exact context of the next call at a level, with the token meter. */
export function ContextPanel({
  data,
  error,
  onPreview,
}: {
  data: PanelData | undefined
  error: string | undefined
  onPreview: (level: string | undefined) => void
}) {
  if (data === undefined) {
    return (
      <section className="panel context" aria-label="What the model sees">
        <h2>What the model sees</h2>
        {error ? (
          <p className="error" data-testid="panel-error">
            {error}
          </p>
        ) : (
          <p className="muted">Loading…</p>
        )}
      </section>
    )
  }
  const { stats, messages } = data.context
  return (
    <section className="panel context" aria-label="What the model sees">
      <h2>What the model sees</h2>
      {error ? (
        <p className="error small" data-testid="panel-error">
          {error} (showing the last data read)
        </p>
      ) : null}
      <label className="small">
        Level{' '}
        <select
          data-testid="preview-level"
          value={data.previewLevel}
          onChange={(event) => onPreview(event.target.value === data.level ? undefined : event.target.value)}
        >
          {data.levels.map((level) => (
            <option key={level} value={level}>
              {level}
              {level === data.level ? ' (current)' : ' (preview)'}
            </option>
          ))}
        </select>
      </label>
      <Meter stats={stats} empty={data.items.length === 0 && data.status.items.archived === 0} />
      <ol className="context-messages" data-testid="context" data-level={data.previewLevel}>
        {messages.map((message, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a context is rebuilt whole; position is its identity
          <li key={index} className={`role-${message.role}`}>
            <span className="role">{message.role}</span>
            <pre>{message.text}</pre>
          </li>
        ))}
      </ol>
    </section>
  )
}
