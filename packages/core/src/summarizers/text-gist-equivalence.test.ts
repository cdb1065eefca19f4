import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { JsonValue } from '../items'
import { JsonScan } from './json-scan'
import { jsonArbitrary, textArbitrary } from './pattern-arbitraries'
import { clip, clipCollapsed, findIdentifiers, jsonGist, sentences } from './text-gist'
import { collapsed, holdsLetterOrNumber, holdsNonSpace, isCapitalised, isSpace } from './text-scan'

/*
 * The pattern summarizer's text and JSON reading was rewritten for speed (one walk of a JSON value,
 * character scans instead of per-word regexes). Its output must not change: each rewritten function is
 * compared here, on generated input, with the implementation it replaced, kept below as the reference.
 */

// ---- The implementations before the rewrite, verbatim: the reference the new ones must equal. ----

const READ = 4_000

function oldClip(text: string, max: number): string {
  const flat = text
    .slice(0, max * 4 + 16)
    .replace(/\s+/g, ' ')
    .trim()
  if (flat.length <= max) return flat
  const cut = flat.slice(0, Math.max(1, max - 1))
  const space = cut.lastIndexOf(' ')
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`
}

const ABBREVIATION = /(?:^|\s)(?:dr|mr|mrs|ms|prof|st|sr|jr|vs|etc|e\.g|i\.e|no|nr|approx|inc|ltd|[a-z])\.$/i

function oldSentences(text: string): string[] {
  const read = text.slice(0, READ)
  const out: string[] = []
  let start = 0
  const push = (end: number) => {
    const sentence = read.slice(start, end).replace(/\s+/g, ' ').trim()
    if (/[\p{L}\p{N}]/u.test(sentence)) out.push(sentence)
  }
  for (const match of read.matchAll(/[.!?…]+(?=\s)|[。！？]+|\n+/g)) {
    const end = match.index + match[0].length
    if (match[0][0] !== '\n' && ABBREVIATION.test(read.slice(Math.max(start, end - 8), end))) continue
    push(end)
    start = end
  }
  push(read.length)
  return out
}

const IDENTIFIER_WORD = [
  /^https?:\/\/\S+$/,
  /^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$/,
  /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
  /^(?:~|\.{1,2})?\/?(?:[\w.-]+\/)+[\w-]+\.[A-Za-z0-9]{1,8}$/,
  /^(?=.*[A-Z])(?=.*\d)[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+$/,
  /^[A-Z]{2,}\d{2,}[A-Z0-9]*$/,
  /^#\d{3,}$/,
]
const VALUE_WORD = [
  /^[$€£]\d[\d,]*(?:\.\d+)?$/,
  /^\d[\d,]*(?:\.\d+)?(?:%|EUR|USD|GBP|CHF|JPY|kg|km|cm|mm|ms|GB|MB|KB|TB|°C|°F)$/u,
  /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?Z?)?$/,
  /^\d{1,2}:\d{2}$/,
]
const NUMBER = /^\d[\d,]*(?:\.\d+)?$/
const UNIT = /^(?:%|EUR|USD|GBP|CHF|JPY|kg|km|cm|mm|ms|GB|MB|KB|TB|°C|°F|€|\$|£)$/u
const CAPITALISED = /^\p{Lu}\p{Ll}+$/u
const MAYBE_IDENTIFIER = /[\d@/]/
function endsSentence(word: string): boolean {
  let end = word.length - 1
  while (end > 0 && `"'”’)»`.includes(word[end]!)) end--
  return '.!?:;…'.includes(word[end]!)
}
const OPENING = new Set(['(', '[', '{', '<', '"', "'", '“', '‘', '«'])
const CLOSING = new Set([')', ']', '}', '>', '"', "'", '”', '’', '»', '.', ',', ';', ':', '!', '?', '…'])
function bare(word: string): string {
  let start = 0
  let end = word.length
  while (start < end && OPENING.has(word[start]!)) start++
  while (end > start && CLOSING.has(word[end - 1]!)) end--
  const apostrophe = word[end - 2]
  if (end - start > 2 && word[end - 1] === 's' && (apostrophe === "'" || apostrophe === '’')) end -= 2
  return word.slice(start, end)
}
const isOldIdentifier = (text: string) =>
  text.length <= 200 && IDENTIFIER_WORD.some((pattern) => pattern.test(text))

function oldFindIdentifiers(text: string, found: (identifier: string) => void) {
  const words = text.slice(0, READ).split(/\s+/)
  let name: string[] = []
  const endName = () => {
    if (name.length >= 2) found(name.join(' '))
    name = []
  }
  let sentenceStart = true
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!
    if (word.length === 0 || word.length > 200) {
      endName()
      continue
    }
    const startsSentence = sentenceStart
    sentenceStart = endsSentence(word)
    if (!MAYBE_IDENTIFIER.test(word)) {
      const core = startsSentence ? '' : bare(word)
      if (core.length > 1 && CAPITALISED.test(core)) {
        name.push(core)
        if (!word.endsWith(core)) endName()
      } else {
        endName()
      }
      continue
    }
    const core = bare(word)
    if (!startsSentence && CAPITALISED.test(core)) {
      name.push(core)
      if (!word.endsWith(core)) endName()
      continue
    }
    endName()
    if (isOldIdentifier(core) || VALUE_WORD.some((pattern) => pattern.test(core))) {
      found(core)
    } else if (NUMBER.test(core) && core === word) {
      const unit = bare(words[index + 1] ?? '')
      if (UNIT.test(unit)) {
        found(`${core} ${unit}`)
        index++
      }
    }
  }
  endName()
}

interface OldLeaf {
  path: string[]
  value: string | number | boolean
}

function oldJsonLeaves(value: JsonValue, limit = 400): OldLeaf[] {
  const leaves: OldLeaf[] = []
  const queue: { path: string[]; value: JsonValue }[] = [{ path: [], value }]
  for (let head = 0; head < queue.length && head < limit; head++) {
    const node = queue[head]!
    const current = node.value
    if (current === null) continue
    if (typeof current !== 'object') {
      leaves.push({ path: node.path, value: current })
    } else if (Array.isArray(current)) {
      for (const entry of current.slice(0, limit)) queue.push({ path: node.path, value: entry })
    } else {
      for (const key of Object.keys(current).slice(0, limit)) {
        queue.push({ path: [...node.path.slice(-1), key], value: current[key]! })
      }
    }
  }
  return leaves
}

function oldSizeOf(value: JsonValue): number {
  if (typeof value === 'string') return value.length
  if (value === null || typeof value !== 'object') return String(value).length
  let size = 0
  for (const leaf of oldJsonLeaves(value)) size += String(leaf.value).length + (leaf.path.at(-1)?.length ?? 0)
  return Math.min(size, READ * 4)
}

function oldListOf(values: readonly string[]): string {
  const shown: string[] = [values[0]!]
  let length = values[0]!.length
  for (const value of values.slice(1, 3)) {
    if (length + value.length + 2 > 60) break
    shown.push(value)
    length += value.length + 2
  }
  return `[${shown.join(', ')}${shown.length < values.length ? ', …' : ''}]`
}

function oldJsonGist(value: JsonValue, { max, separator }: { max: number; separator: string }): string {
  if (typeof value === 'string') {
    const line = value
      .slice(0, READ)
      .split('\n')
      .find((part) => part.trim().length > 0)
    return oldClip(line ?? '', max)
  }
  if (value === null || typeof value !== 'object') return oldClip(String(value), max)
  const byKey = new Map<string, string[]>()
  let length = 0
  for (const leaf of oldJsonLeaves(value, 64)) {
    const key = leaf.path.at(-1) ?? ''
    const values = byKey.get(key)
    if (values === undefined && (byKey.size >= 4 || length >= max)) break
    const text = oldClip(String(leaf.value), 40)
    if (values === undefined) byKey.set(key, [text])
    else if (values.length < 4) values.push(text)
    length += text.length + key.length + 2
  }
  const pairs = [...byKey].map(([key, values]) => {
    const shown = values.length === 1 ? values[0]! : oldListOf(values)
    return key === '' ? shown : `${key}${separator}${shown}`
  })
  const items = Array.isArray(value) ? `${value.length} item${value.length === 1 ? '' : 's'}` : ''
  const body = pairs.join(', ')
  return oldClip(items && body ? `${items}: ${body}` : items || body, max)
}

const identifiersOf = (find: (text: string, found: (identifier: string) => void) => void, text: string) => {
  const found: string[] = []
  find(text, (identifier) => found.push(identifier))
  return found
}

describe('the rewritten text reading gives what the regexes gave', () => {
  it('takes as white space exactly what \\s matches, for every UTF-16 code unit', () => {
    for (let code = 0; code < 0x10000; code++) {
      expect(isSpace(code), `U+${code.toString(16)}`).toBe(/\s/.test(String.fromCharCode(code)))
    }
  })

  it('collapses white space, tests letters, capitals and blank text like the regexes', () => {
    fc.assert(
      fc.property(textArbitrary, fc.nat(), fc.nat(), (text, from, length) => {
        expect(collapsed(text)).toBe(text.replace(/\s+/g, ' ').trim())
        const start = Math.min(from, text.length)
        const end = Math.min(text.length, start + length)
        expect(collapsed(text, start, end)).toBe(text.slice(start, end).replace(/\s+/g, ' ').trim())
        expect(holdsLetterOrNumber(text)).toBe(/[\p{L}\p{N}]/u.test(text))
        expect(holdsNonSpace(text)).toBe(text.trim().length > 0)
        expect(isCapitalised(text, start, end)).toBe(/^\p{Lu}\p{Ll}+$/u.test(text.slice(start, end)))
      }),
      { numRuns: 3_000 },
    )
  })

  it('clips, splits sentences and finds identifiers as before', () => {
    fc.assert(
      fc.property(textArbitrary, fc.integer({ min: 1, max: 400 }), (text, max) => {
        expect(clip(text, max)).toBe(oldClip(text, max))
        expect(sentences(text)).toEqual(oldSentences(text))
        // A collapsed text (sentences joined by spaces) clips the same without the white-space scan.
        const joined = oldSentences(text).join(' ')
        expect(clipCollapsed(joined, max)).toBe(oldClip(joined, max))
        expect(identifiersOf(findIdentifiers, text)).toEqual(identifiersOf(oldFindIdentifiers, text))
      }),
      { numRuns: 3_000 },
    )
  })

  it('reads only the characters and identifiers asked for: the first ones the full reading finds', () => {
    fc.assert(
      fc.property(textArbitrary, fc.integer({ min: 0, max: 5_000 }), fc.nat(8), (text, readChars, wanted) => {
        const found: string[] = []
        findIdentifiers(text, (identifier) => found.push(identifier), undefined, readChars)
        expect(found).toEqual(identifiersOf(oldFindIdentifiers, text.slice(0, Math.min(readChars, 4_000))))
        const taken: string[] = []
        findIdentifiers(
          text,
          (identifier) => taken.push(identifier),
          () => taken.length >= wanted,
        )
        expect(taken).toEqual(identifiersOf(oldFindIdentifiers, text).slice(0, wanted))
      }),
      // The first example: a name ended by an identifier, where one identifier was wanted (found once in
      // 12 runs of 2 000 examples each; both used to be taken).
      { numRuns: 2_000, examples: [['I Ana Øre mem_01JD4K7Q9X ', 0, 1]] },
    )
  })

  it('walks a JSON value once: the same leaves, gist and size as the walks it replaced', () => {
    const scan = new JsonScan()
    fc.assert(
      fc.property(jsonArbitrary, fc.integer({ min: 1, max: 200 }), (value, max) => {
        for (const separator of ['=', ': ']) {
          expect(jsonGist(value, { max, separator })).toBe(oldJsonGist(value, { max, separator }))
        }
        scan.scan(value)
        const gist = oldJsonLeaves(value, 64)
        expect(scan.gistLeaves).toBe(gist.length)
        // Leaf by leaf, the walk going on as far as asked.
        const all = oldJsonLeaves(value)
        for (let index = 0; index <= all.length; index++) {
          expect(scan.leaf(index)).toBe(index < all.length)
          if (index === all.length) break
          expect(scan.values[index]).toBe(all[index]!.value)
          expect(scan.keys[index]).toBe(all[index]!.path.at(-1) ?? '')
        }
        expect(scan.count).toBe(all.length)
        if (value !== null && typeof value === 'object') expect(scan.size(16_000)).toBe(oldSizeOf(value))
        scan.clear()
        expect(scan.count).toBe(0)
      }),
      { numRuns: 2_000 },
    )
  })
})
