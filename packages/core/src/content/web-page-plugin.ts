import type { JsonValue } from '../items'
import type { CitationInput, ContentPlugin } from './content-plugin'
import { formatCount } from './content-size'

/** Options of {@link webPagePlugin}. */
export interface WebPagePluginOptions {
  /**
   * Characters of the page's text in the excerpt.
   * @default 500
   */
  excerptChars?: number
}

/** Fields a fetched page's JSON result may carry its text under, in the order they are tried. */
const TEXT_FIELDS = ['content', 'markdown', 'text', 'body', 'html'] as const

const isObject = (value: JsonValue | undefined): value is { [key: string]: JsonValue } =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const stringField = (value: JsonValue | undefined, key: string): string | undefined => {
  if (!isObject(value)) return undefined
  const field = value[key]
  return typeof field === 'string' ? field : undefined
}

/** The parts of a web page a citation names. */
interface Page {
  url: string
  title?: string
  text: string
}

const looksLikeHtml = (text: string) => /^\s*(<!doctype html|<html|<head|<body)/i.test(text)

/** Visible text of an HTML document, roughly: scripts and styles dropped, tags removed, spaces collapsed. */
function htmlText(html: string): string {
  return html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ')
    .trim()
}

function titleOf(text: string): string | undefined {
  const html = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)
  if (html) return htmlText(html[1]!) || undefined
  const heading = /^#\s+(.+)$/m.exec(text)
  return heading ? heading[1]!.trim() : undefined
}

/**
 * Finds the page in a result: a JSON object with a string `url` and its text under `content`,
 * `markdown`, `text`, `body` or `html`; or a string result of a call whose input has a `url`.
 */
function pageOf({ value, input }: CitationInput): Page | undefined {
  const url = stringField(value, 'url')
  if (url !== undefined) {
    const field = TEXT_FIELDS.find((key) => stringField(value, key) !== undefined)
    if (field === undefined) return undefined
    const raw = stringField(value, field)!
    const title = stringField(value, 'title') ?? titleOf(raw)
    const text = looksLikeHtml(raw) || field === 'html' ? htmlText(raw) : raw
    return title === undefined ? { url, text } : { url, title, text }
  }
  const inputUrl = stringField(input, 'url')
  if (typeof value === 'string' && inputUrl !== undefined) {
    const title = titleOf(value)
    const text = looksLikeHtml(value) ? htmlText(value) : value
    return title === undefined ? { url: inputUrl, text } : { url: inputUrl, title, text }
  }
  return undefined
}

/**
 * Cites a fetched web page by url, title, an excerpt of its text and its length. It recognises a JSON
 * result with `url` and the page text (`content`, `markdown`, `text`, `body` or `html`), and a string
 * result (HTML, markdown or text) of a call whose input has a `url`; HTML is reduced to its text.
 */
export function webPagePlugin({ excerptChars = 500 }: WebPagePluginOptions = {}): ContentPlugin {
  return {
    name: 'web-page',
    matches: (input) => pageOf(input) !== undefined,
    type: () => 'web-page',
    cite(input) {
      const page = pageOf(input)
      // Named for a tool whose result is not a page after all: cite what is there.
      if (page === undefined) {
        return `[stored ${input.type} from ${input.source}, ${formatCount(input.data.length)} characters]\nStarts: ${input.data.slice(0, excerptChars)}`
      }
      const excerpt = page.text.slice(0, excerptChars)
      const lines = [
        `[stored web page from ${input.source}, ${formatCount(page.text.length)} characters of text]`,
        `URL: ${page.url}`,
        ...(page.title === undefined ? [] : [`Title: ${page.title}`]),
        `Excerpt: ${excerpt}${page.text.length > excerpt.length ? '…' : ''}`,
      ]
      return lines.join('\n')
    },
    label(input) {
      const page = pageOf(input)
      if (page === undefined) return undefined
      return page.title === undefined ? `URL: ${page.url}` : `URL: ${page.url} Title: ${page.title}`
    },
  }
}
