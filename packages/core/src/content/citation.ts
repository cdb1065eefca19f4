import type { Item, UnsequencedItem } from '../items'
import type { Summarizer } from '../summarizers'
import { withTimeout } from '../summarizers'
import type { ContentToolOptions, ResolvedContentOptions } from './content-options'
import type { CitationInput, ContentPlugin } from './content-plugin'

/** The line every citation ends with: the memory id and how to get the content back. */
export function citationFooter(id: string): string {
  return `Memory id: ${id}. Retrieve it with memory_retrieve {"id":"${id}"} (transform: full, excerpt, summary, first_n, last_n or filtered).`
}

/**
 * The brief citation older contexts show: the body's first line, the plugin's label, and the memory id
 * with the tool that brings the content back.
 */
export function briefCitation(body: string, label: string | undefined, id: string): string {
  const first = body.split('\n', 1)[0]!.trim()
  return `${first}${label ? ` ${label}` : ''}\n${briefFooter(id)}`
}

/** The line a brief citation ends with. */
export function briefFooter(id: string): string {
  return `Memory id: ${id} (memory_retrieve).`
}

/**
 * The plugin that cites a result: the tool's own, else the first listed plugin that matches, else the
 * generic plugin.
 */
export function selectPlugin(
  input: CitationInput,
  tool: ContentToolOptions | undefined,
  options: Pick<ResolvedContentOptions, 'plugins' | 'fallbackPlugin'>,
): ContentPlugin {
  if (tool?.plugin !== undefined) return tool.plugin
  return (
    options.plugins.find((plugin) => plugin.matches === undefined || plugin.matches(input)) ??
    options.fallbackPlugin
  )
}

/** What {@link writeCitation} needs besides the result. */
export interface CitationContext {
  tool: ContentToolOptions | undefined
  options: ResolvedContentOptions
  /** The memory's summarizer, for `llmCitation: true`. */
  summarizer: Summarizer
  /** The item the result came in, holding only the stored part, for the summarizer. */
  item: UnsequencedItem
}

/**
 * Writes the citation body: an LLM's (through the summarizer contract) when the tool asks for one and
 * it answers in time, otherwise the plugin's. Returns the body and the name of what wrote it.
 */
export async function writeCitation(
  input: CitationInput,
  plugin: ContentPlugin,
  { tool, options, summarizer, item }: CitationContext,
): Promise<{ body: string; by: string }> {
  const llm = tool?.llmCitation
  if (llm !== undefined && llm !== false) {
    const chosen = llm === true ? summarizer : llm.summarizer
    try {
      const synthetic = { ...item, seq: 0 } as Item
      const { summary } = await withTimeout(chosen, { timeoutMs: options.citationTimeoutMs }).summarize(
        [synthetic],
        {
          tier: 'scope',
          scope: {
            title: `citation of the ${input.source} result stored as ${input.id}`,
            level: item.level,
            outcome: 'complete',
          },
        },
      )
      if (summary.trim().length > 0) {
        return {
          body: `[stored ${input.type} from ${input.source}, ${input.data.length} characters]\n${summary.trim()}`,
          by: chosen.name,
        }
      }
    } catch {
      // An LLM citation is a nicety: the plugin's citation stands in, and the content is stored either way.
    }
  }
  return { body: await plugin.cite(input), by: plugin.name }
}
