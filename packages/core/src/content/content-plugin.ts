import type { JsonValue } from '../items'

/** What a compaction plugin is given to write the citation of one stored result. */
export interface CitationInput {
  /** The memory id the content is stored under. */
  id: string
  /** The content type recorded so far (`text` or `json`; a plugin may name its own with {@link ContentPlugin.type}). */
  type: string
  /** The stored text: a string result as it was, any other JSON value serialised. */
  data: string
  /** The result as the tool returned it (a string, or any JSON value). */
  value: JsonValue
  /** True when `value` is not a string and `data` is its JSON serialisation. */
  json: boolean
  /** The tool that produced it, or `user` for an attachment. */
  source: string
  /** The input of the tool call that produced it, when it is in the thread. */
  input?: JsonValue
  /** Size of `data` in UTF-8 bytes. */
  size: number
  /** The media type of an attachment (`text/plain` for text, `application/json` for JSON). */
  mediaType: string
  /** The filename of a file attachment. */
  filename?: string
}

/**
 * A compaction plugin: turns a stored result into the compact citation later contexts show in its
 * place. The content channel appends the memory id and how to retrieve it, so a plugin writes only
 * the body. Pick one per tool with `createMemory({ content: { tools: { name: { plugin } } } })`, or
 * list it in `content.plugins` and let {@link ContentPlugin.matches} choose.
 *
 * @example
 * const issuePlugin: ContentPlugin = {
 *   name: 'issue',
 *   matches: ({ source }) => source === 'get_issue',
 *   cite: ({ value }) => `Issue ${(value as { number: number }).number}`,
 * }
 */
export interface ContentPlugin {
  /** A short name for status and tests, e.g. `web-page`. */
  readonly name: string
  /**
   * True when this plugin should cite the result. Plugins in `content.plugins` are asked in order; the
   * generic plugin answers for the rest. A plugin named for a tool is used without asking.
   * @default () => true
   */
  matches?(input: CitationInput): boolean
  /** The content type to record for this result (e.g. `web-page`). @default the type so far */
  type?(input: CitationInput): string
  /** The citation body; keep it short (a few hundred characters). May be async. */
  cite(input: CitationInput): string | Promise<string>
  /**
   * A few words that name the content in its brief citation, the form contexts show once the result
   * is `briefAfterTurns` turns old (e.g. a page's URL and title). The brief citation is the first line
   * of the citation body, this label, and the memory id.
   * @default nothing: the body's first line alone
   */
  label?(input: CitationInput): string | undefined
}
