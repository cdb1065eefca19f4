import type { ContentPlugin } from './content-plugin'
import { formatCount } from './content-size'

/** Options of {@link genericPlugin}. */
export interface GenericPluginOptions {
  /**
   * Characters of the content shown at the start of the citation.
   * @default 500
   */
  excerptChars?: number
}

/**
 * The fallback citation: the content's type, length, source, and its first 500 characters.
 *
 * @example
 * createMemory({ content: { tools: { run_sql: { plugin: genericPlugin({ excerptChars: 200 }) } } } })
 */
export function genericPlugin({ excerptChars = 500 }: GenericPluginOptions = {}): ContentPlugin {
  return {
    name: 'generic',
    cite({ type, data, source, filename, mediaType }) {
      const what =
        filename === undefined ? `${type} from ${source}` : `${mediaType} file "${filename}" from ${source}`
      const head = data.slice(0, excerptChars)
      const more = data.length > head.length ? '…' : ''
      return `[stored ${what}, ${formatCount(data.length)} characters]\nStarts: ${head}${more}`
    },
  }
}
