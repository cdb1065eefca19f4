/**
 * Character-level helpers of the pattern summarizer: what its regexes did on every word and sentence,
 * done in one pass over the character codes, with the regex kept for the rare text the fast path does
 * not decide (so the result is always the regex's).
 */

/** True for the characters `\s` matches and `trim()` removes (ECMAScript white space and line ends). */
export function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13)
  return code >= 0xa0 && isWideSpace(code)
}

function isWideSpace(code: number): boolean {
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  )
}

/**
 * `text.slice(start, end).replace(/\s+/g, ' ').trim()`: the text with its white space collapsed. A
 * text already in that form (single spaces between words, none at the ends) is returned without a copy
 * when it is the whole text.
 */
export function collapsed(text: string, start = 0, end = text.length): string {
  // Trimmed first: white space at the ends goes whatever it is.
  let from = start
  let to = end
  while (from < to && isSpace(text.charCodeAt(from))) from++
  while (to > from && isSpace(text.charCodeAt(to - 1))) to--
  // In between, only single spaces may stand: a space after a space, or any other white space, needs the regex.
  let space = false
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index)
    if (code === 32) {
      if (space) return collapsedSlowly(text, from, to)
      space = true
    } else if (code < 32 ? code >= 9 && code <= 13 : code >= 0xa0 && isWideSpace(code)) {
      return collapsedSlowly(text, from, to)
    } else {
      space = false
    }
  }
  return from === 0 && to === text.length ? text : text.slice(from, to)
}

function collapsedSlowly(text: string, start: number, end: number): string {
  return text.slice(start, end).replace(/\s+/g, ' ').trim()
}

/** True when `text` holds more than white space (`text.trim().length > 0`). */
export function holdsNonSpace(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (!isSpace(text.charCodeAt(index))) return true
  return false
}

const LETTER_OR_NUMBER = /[\p{L}\p{N}]/u

/** `/[\p{L}\p{N}]/u.test(text)`: ASCII decided by its codes, anything else by the regex. */
export function holdsLetterOrNumber(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code >= 128) return LETTER_OR_NUMBER.test(text)
    if ((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)) return true
  }
  return false
}

const CAPITALISED = /^\p{Lu}\p{Ll}+$/u

/** `/^\p{Lu}\p{Ll}+$/u.test(text.slice(start, end))` (`Lima`, `Émile`): ASCII by its codes. */
export function isCapitalised(text: string, start: number, end: number): boolean {
  if (end - start < 2) return false
  const first = text.charCodeAt(start)
  if (first < 128 && (first < 65 || first > 90)) return false
  if (first >= 128) return CAPITALISED.test(text.slice(start, end))
  for (let index = start + 1; index < end; index++) {
    const code = text.charCodeAt(index)
    if (code >= 128) return CAPITALISED.test(text.slice(start, end))
    if (code < 97 || code > 122) return false
  }
  return true
}

/** Opening punctuation `bare` takes off a word: `( [ { < " ' “ ‘ «`. */
export function isOpening(code: number): boolean {
  return (
    code === 40 ||
    code === 91 ||
    code === 123 ||
    code === 60 ||
    code === 34 ||
    code === 39 ||
    code === 0x201c ||
    code === 0x2018 ||
    code === 0xab
  )
}

/** Closing punctuation `bare` takes off a word: `) ] } > " ' ” ’ » . , ; : ! ? …`. */
export function isClosing(code: number): boolean {
  if (code < 128) {
    return (
      code === 41 ||
      code === 93 ||
      code === 125 ||
      code === 62 ||
      code === 34 ||
      code === 39 ||
      code === 46 ||
      code === 44 ||
      code === 59 ||
      code === 58 ||
      code === 33 ||
      code === 63
    )
  }
  return code === 0x201d || code === 0x2019 || code === 0xbb || code === 0x2026
}

/**
 * True when the word `text[start, end)` ends a sentence: `.`, `!`, `?`, `:`, `;` or `…`, maybe before
 * closing quotes and brackets (`"'”’)»`).
 */
export function endsSentence(text: string, start: number, end: number): boolean {
  let last = end - 1
  while (last > start) {
    const code = text.charCodeAt(last)
    if (code !== 34 && code !== 39 && code !== 0x201d && code !== 0x2019 && code !== 41 && code !== 0xbb)
      break
    last--
  }
  const code = text.charCodeAt(last)
  return code === 46 || code === 33 || code === 63 || code === 58 || code === 59 || code === 0x2026
}

/** Punctuation a word opens with that the fact rules take off: `( " ' “ ‘ « [ { < （ 「 『`. */
function isEdgeOpening(code: number): boolean {
  if (code < 128)
    return code === 40 || code === 34 || code === 39 || code === 91 || code === 123 || code === 60
  return (
    code === 0x201c ||
    code === 0x2018 ||
    code === 0xab ||
    code === 0xff08 ||
    code === 0x300c ||
    code === 0x300e
  )
}

/** Punctuation a word ends with that the fact rules take off: `) " ' ” ’ » ] } > . , ; : ! ? … ） 」 』 ， 。 ！ ？ 、`. */
function isEdgeClosing(code: number): boolean {
  if (code < 128) return isClosing(code)
  return (
    code === 0x201d ||
    code === 0x2019 ||
    code === 0xbb ||
    code === 0x2026 ||
    code === 0xff09 ||
    code === 0x300d ||
    code === 0x300f ||
    code === 0xff0c ||
    code === 0x3002 ||
    code === 0xff01 ||
    code === 0xff1f ||
    code === 0x3001
  )
}

/** A range of a text, `[start, end)`: what {@link withoutEdges} sets. */
export interface TextRange {
  start: number
  end: number
}

/**
 * Sets `range` to the word `text[start, end)` without the punctuation around it: what
 * `/^[("'“‘«[{<（「『]+|[)"'”’»\]}>.,;:!?…）」』，。！？、]+$/gu` leaves (leading marks first, then the
 * trailing ones of what is left).
 */
export function withoutEdges(text: string, start: number, end: number, range: TextRange) {
  let from = start
  let to = end
  while (from < to && isEdgeOpening(text.charCodeAt(from))) from++
  while (to > from && isEdgeClosing(text.charCodeAt(to - 1))) to--
  range.start = from
  range.end = to
}

const edges: TextRange = { start: 0, end: 0 }

/** `text.split(/\s+/)`, each word without the punctuation around it, the empty ones left out. */
export function bareWords(text: string): string[] {
  const words: string[] = []
  let index = 0
  while (index < text.length) {
    while (index < text.length && isSpace(text.charCodeAt(index))) index++
    const start = index
    while (index < text.length && !isSpace(text.charCodeAt(index))) index++
    withoutEdges(text, start, index, edges)
    if (edges.end > edges.start) words.push(text.slice(edges.start, edges.end))
  }
  return words
}

/** How many of {@link bareWords}' words `text` has, counted up to `most`. */
export function countBareWords(text: string, most: number): number {
  let count = 0
  let index = 0
  while (index < text.length && count < most) {
    while (index < text.length && isSpace(text.charCodeAt(index))) index++
    const start = index
    while (index < text.length && !isSpace(text.charCodeAt(index))) index++
    withoutEdges(text, start, index, edges)
    if (edges.end > edges.start) count++
  }
  return count
}
