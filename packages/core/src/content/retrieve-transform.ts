import type { JsonValue } from '../items'
import { utf8Length } from './content-size'
import { filterJson, isRecord, parseDocument } from './json-filter'

/** How `memory_retrieve` shapes what it returns. */
export type RetrieveTransform = 'full' | 'excerpt' | 'summary' | 'first_n' | 'last_n' | 'filtered'

export const RETRIEVE_TRANSFORMS: readonly RetrieveTransform[] = [
  'full',
  'excerpt',
  'summary',
  'first_n',
  'last_n',
  'filtered',
]

/** Defaults of the transforms' parameters. */
export const TRANSFORM_DEFAULTS = { n: 20, excerptChars: 1_000, summaryChars: 800 } as const

/** The parameters of a transform, already checked. */
export interface TransformParameters {
  transform: RetrieveTransform
  n?: number
  pattern?: string
  maxChars?: number
}

/** What a transform gives. */
export interface TransformResult {
  content: string
  /** True when `content` is not the whole stored content. */
  truncated: boolean
  /** What the transform could not do as asked, for the model (`filtered` that removed nothing). */
  note?: string
}

const parseJson = (data: string): JsonValue | undefined => {
  try {
    return JSON.parse(data) as JsonValue
  } catch {
    return undefined
  }
}

/**
 * Applies a transform to stored content. Text is taken line by line; JSON (when `json` is true and the
 * data parses) element by element for an array and entry by entry for an object. Pure and deterministic.
 */
export function applyTransform(
  data: string,
  json: boolean,
  parameters: TransformParameters,
): TransformResult {
  const value = json ? parseJson(data) : undefined
  const { transform } = parameters
  switch (transform) {
    case 'full':
      return { content: data, truncated: false }
    case 'excerpt':
      return excerpt(data, parameters.maxChars ?? TRANSFORM_DEFAULTS.excerptChars, parameters.pattern)
    case 'summary': {
      const maxChars = parameters.maxChars ?? TRANSFORM_DEFAULTS.summaryChars
      const content = cap(value === undefined ? summarizeText(data) : summarizeJson(value, data), maxChars)
      return { content, truncated: content !== data }
    }
    case 'first_n':
    case 'last_n': {
      const n = parameters.n ?? TRANSFORM_DEFAULTS.n
      const take = <T>(list: readonly T[]) => (transform === 'first_n' ? list.slice(0, n) : list.slice(-n))
      if (value !== undefined && Array.isArray(value)) {
        return { content: JSON.stringify(take(value)), truncated: value.length > n }
      }
      if (value !== undefined && isRecord(value)) {
        const entries = Object.entries(value)
        return { content: JSON.stringify(Object.fromEntries(take(entries))), truncated: entries.length > n }
      }
      const lines = data.split('\n')
      return { content: take(lines).join('\n'), truncated: lines.length > n }
    }
    case 'filtered':
      return filtered(data, json, parameters.pattern ?? '')
  }
}

const cap = (text: string, maxChars: number) =>
  text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`

/** `maxChars` characters of the data, centred on the first case-insensitive match of `pattern` when given. */
function excerpt(data: string, maxChars: number, pattern: string | undefined): TransformResult {
  if (data.length <= maxChars) return { content: data, truncated: false }
  let start = 0
  if (pattern !== undefined) {
    const at = data.toLowerCase().indexOf(pattern.toLowerCase())
    if (at >= 0)
      start = Math.max(0, Math.min(data.length - maxChars, at - Math.floor((maxChars - pattern.length) / 2)))
  }
  return { content: data.slice(start, start + maxChars), truncated: true }
}

/** An offline extractive summary: the size, then the first sentence of each paragraph, in order. */
function summarizeText(data: string): string {
  const lines = data.split('\n').length
  const words = data.split(/\s+/).filter(Boolean).length
  const leads = data
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s+/g, ' ').trim())
    .filter((paragraph) => paragraph.length > 0)
    .map((paragraph) => /^.*?[.!?](?=\s|$)/.exec(paragraph)?.[0] ?? paragraph.slice(0, 200))
  return [`Text: ${lines} lines, ${words} words, ${data.length} characters.`, ...leads].join('\n')
}

/** The shape of a JSON value: types, keys, array lengths, a few levels deep. */
function shapeOf(value: JsonValue, depth: number): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) {
    if (value.length === 0) return 'array(0)'
    return depth <= 0
      ? `array(${value.length})`
      : `array(${value.length}) of ${shapeOf(value[0]!, depth - 1)}`
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value)
    if (depth <= 0) return `object(${keys.length} keys)`
    const fields = keys.slice(0, 12).map((key) => `${key}: ${shapeOf(value[key]!, depth - 1)}`)
    return `{ ${fields.join(', ')}${keys.length > 12 ? `, … ${keys.length - 12} more` : ''} }`
  }
  return typeof value
}

function summarizeJson(value: JsonValue, data: string): string {
  const sample =
    Array.isArray(value) && value.length > 0 ? `\nFirst element: ${JSON.stringify(value[0])}` : ''
  return `JSON, ${data.length} characters: ${shapeOf(value, 3)}${sample}`
}

/**
 * `filtered`: the lines of text containing the pattern; for a JSON document (stored as JSON, or text
 * that parses as an object or array) its lists filtered with its shape kept (see {@link filterJson}),
 * as plain JSON text. Never larger than the stored content: when filtering removes nothing or would not
 * make it smaller, the content comes back as stored, with a note that says so.
 */
function filtered(data: string, json: boolean, pattern: string): TransformResult {
  const quoted = JSON.stringify(pattern)
  const whole = (note: string): TransformResult => ({ content: data, truncated: false, note })
  const document = json || /^\s*["[{]/.test(data) ? parseDocument(data) : undefined
  if (document === undefined) {
    const needle = pattern.toLowerCase()
    const lines = data.split('\n')
    const kept = lines.filter((line) => line.toLowerCase().includes(needle))
    if (kept.length === lines.length)
      return whole(`Every line contains ${quoted}: this is the whole content.`)
    return {
      content: kept.join('\n'),
      truncated: true,
      ...(kept.length === 0 ? { note: `No line contains ${quoted}.` } : {}),
    }
  }
  const { value, looked, removed } = filterJson(document, pattern)
  if (looked === 0) return whole(`This JSON has no list to filter: this is the whole document.`)
  if (removed === 0)
    return whole(`Every element of its lists contains ${quoted}: this is the whole document.`)
  const content = JSON.stringify(value)
  if (utf8Length(content) >= utf8Length(data)) {
    return whole(
      `Filtering by ${quoted} removed ${removed} of ${looked} elements but was not smaller than the stored JSON: this is the whole document.`,
    )
  }
  return {
    content,
    truncated: true,
    ...(removed === looked ? { note: `No element contains ${quoted}; the lists are empty.` } : {}),
  }
}
