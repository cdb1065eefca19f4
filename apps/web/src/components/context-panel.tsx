import type { PanelData } from '../lib/panel-data'

const percent = (ratio: number) => `${Math.round(ratio * 100)}%`

/** What the model sees: the exact context of the next call at a level, with the token meter. */
export function ContextPanel({
  data,
  onPreview,
}: {
  data: PanelData | undefined
  onPreview: (level: string | undefined) => void
}) {
  if (data === undefined) return <section className="panel context">Loading…</section>
  const { stats, messages } = data.context
  const share = stats.totalTokens === 0 ? 0 : stats.contextTokens / stats.totalTokens
  return (
    <section className="panel context" aria-label="What the model sees">
      <h2>What the model sees</h2>
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
      <div className="meter" data-testid="meter" data-saved-ratio={stats.savedRatio}>
        <div className="bar">
          <div className="fill" style={{ width: `${Math.max(1, share * 100)}%` }} />
        </div>
        <p className="small">
          {stats.contextTokens.toLocaleString('en')} tokens sent of {stats.totalTokens.toLocaleString('en')}{' '}
          in the thread · <strong data-testid="saved">{percent(stats.savedRatio)} saved</strong>
          {stats.inputBudget ? ` · budget ${stats.inputBudget.toLocaleString('en')}` : ''}
        </p>
      </div>
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
