import { invalidOptions, shownValue } from '../errors'
import type { Summarizer } from '../summarizers'
import type { ContentPlugin } from './content-plugin'
import { genericPlugin } from './generic-plugin'
import { webPagePlugin } from './web-page-plugin'

/** How the content channel treats one tool's results. */
export interface ContentToolOptions {
  /**
   * `always`: offload every result of this tool, whatever its size; `never`: keep them inline;
   * `size`: offload above `offloadAboveBytes` like any tool.
   * @default 'size'
   */
  offload?: 'always' | 'never' | 'size'
  /** The plugin that writes this tool's citations. @default the first matching `plugins` entry, else the generic plugin */
  plugin?: ContentPlugin
  /**
   * Have a summarizer (an LLM one, through the summarizer contract) write the citation instead of the
   * plugin; on failure or time-out the plugin's citation stands in.
   * @default false
   */
  llmCitation?: boolean | { summarizer: Summarizer }
  /** The content type recorded for this tool's results. @default the plugin's, else `text` or `json` */
  type?: string
  /** Tags recorded with this tool's results. @default [] */
  tags?: string[]
}

/** The `content` option of `createMemory`: the content channel. */
export interface ContentOptions {
  /**
   * A tool result (or user attachment) larger than this many UTF-8 bytes is stored once in the content
   * store and shown in full only in the first context after it.
   * @default 4096
   */
  offloadAboveBytes?: number
  /** Per-tool settings, by tool name. @default {} */
  tools?: Readonly<Record<string, ContentToolOptions>>
  /**
   * Plugins asked in order, by `matches`, to cite a result of a tool without its own plugin; the
   * generic plugin cites the rest.
   * @default [webPagePlugin()]
   */
  plugins?: readonly ContentPlugin[]
  /**
   * Offload large user-supplied text and file parts (attachments) by the same rule.
   * @default true
   */
  attachments?: boolean
  /**
   * How long an LLM citation may take before the plugin's citation is used instead.
   * @default 30_000
   */
  citationTimeoutMs?: number
  /**
   * A citation from this many turns back or more is shown in its brief form (first line, the plugin's
   * label, the memory id) instead of the full citation with its excerpt; false keeps full citations.
   * @default 3
   */
  briefAfterTurns?: number | false
  /**
   * At most this many answered tool results are shown as citations of their own, the newest ones.
   * Older ones leave the context together with their tool calls (so every call keeps its result) and
   * are listed one line each (what it is, the memory id) in a single `[STORED RESULTS]` note where the
   * first of them stood; `memory_retrieve` and `memory_query` still reach them. Keeps a long tool loop's
   * context from growing by a citation and a call per result. false shows every citation.
   * @default 24
   */
  maxCitations?: number | false
}

/** Content options with defaults applied and checked. */
export interface ResolvedContentOptions {
  /** False: the channel stores nothing by itself (the memory tools still work). */
  offload: boolean
  offloadAboveBytes: number
  tools: Readonly<Record<string, ContentToolOptions>>
  plugins: readonly ContentPlugin[]
  fallbackPlugin: ContentPlugin
  attachments: boolean
  citationTimeoutMs: number
  /** Infinity when brief citations are off. */
  briefAfterTurns: number
  /** Infinity when every citation is shown. */
  maxCitations: number
}

const isPlugin = (value: unknown): value is ContentPlugin =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as ContentPlugin).name === 'string' &&
  typeof (value as ContentPlugin).cite === 'function'

/** Applies the defaults and validates: `STRATA_INVALID_OPTIONS` with what to change. */
export function resolveContentOptions(options: ContentOptions | false = {}): ResolvedContentOptions {
  if (options === false) {
    return {
      offload: false,
      offloadAboveBytes: Number.POSITIVE_INFINITY,
      tools: {},
      plugins: [],
      fallbackPlugin: genericPlugin(),
      attachments: false,
      citationTimeoutMs: 30_000,
      briefAfterTurns: 3,
      maxCitations: 24,
    }
  }
  if (typeof options !== 'object' || options === null) {
    invalidOptions(
      'createMemory(): content must be an options object such as { offloadAboveBytes: 4096 }, or false.',
    )
  }
  const {
    offloadAboveBytes = 4096,
    tools = {},
    plugins = [webPagePlugin()],
    attachments = true,
    citationTimeoutMs = 30_000,
    briefAfterTurns = 3,
    maxCitations = 24,
  } = options
  if (briefAfterTurns !== false && (!Number.isSafeInteger(briefAfterTurns) || briefAfterTurns < 1)) {
    invalidOptions(
      `content: briefAfterTurns must be a whole number of turns, at least 1, or false (got ${shownValue(briefAfterTurns)}).`,
    )
  }
  if (maxCitations !== false && (!Number.isSafeInteger(maxCitations) || maxCitations < 0)) {
    invalidOptions(
      `content: maxCitations must be a whole number of citations, 0 or more, or false (got ${shownValue(maxCitations)}).`,
    )
  }
  if (!Number.isSafeInteger(offloadAboveBytes) || offloadAboveBytes < 0) {
    invalidOptions(
      `content: offloadAboveBytes must be a whole number of bytes, 0 or more (got ${shownValue(offloadAboveBytes)}).`,
    )
  }
  if (!Number.isSafeInteger(citationTimeoutMs) || citationTimeoutMs < 1) {
    invalidOptions(
      `content: citationTimeoutMs must be a whole number of at least 1 (got ${shownValue(citationTimeoutMs)}).`,
    )
  }
  if (!Array.isArray(plugins) || !plugins.every(isPlugin)) {
    invalidOptions('content: plugins must be an array of plugins, each with a name and a cite() method.')
  }
  if (typeof tools !== 'object' || tools === null)
    invalidOptions('content: tools must be an object keyed by tool name.')
  for (const [name, tool] of Object.entries(tools)) {
    if (typeof tool !== 'object' || tool === null)
      invalidOptions(`content: tools['${name}'] must be an options object.`)
    if (tool.offload !== undefined && !['always', 'never', 'size'].includes(tool.offload)) {
      invalidOptions(
        `content: tools['${name}'].offload must be 'always', 'never' or 'size' (got ${JSON.stringify(tool.offload)}).`,
      )
    }
    if (tool.plugin !== undefined && !isPlugin(tool.plugin)) {
      invalidOptions(`content: tools['${name}'].plugin must have a name and a cite() method.`)
    }
    if (tool.type !== undefined && (typeof tool.type !== 'string' || tool.type === '')) {
      invalidOptions(`content: tools['${name}'].type must be a non-empty string.`)
    }
    if (
      tool.tags !== undefined &&
      !(Array.isArray(tool.tags) && tool.tags.every((tag) => typeof tag === 'string'))
    ) {
      invalidOptions(`content: tools['${name}'].tags must be an array of strings.`)
    }
    const llm = tool.llmCitation
    if (llm !== undefined && typeof llm !== 'boolean') {
      if (typeof llm !== 'object' || llm === null || typeof llm.summarizer?.summarize !== 'function') {
        invalidOptions(`content: tools['${name}'].llmCitation must be true, false or { summarizer }.`)
      }
    }
  }
  return {
    offload: true,
    offloadAboveBytes,
    tools,
    plugins,
    fallbackPlugin: genericPlugin(),
    attachments: attachments !== false,
    citationTimeoutMs,
    briefAfterTurns: briefAfterTurns === false ? Number.POSITIVE_INFINITY : briefAfterTurns,
    maxCitations: maxCitations === false ? Number.POSITIVE_INFINITY : maxCitations,
  }
}
