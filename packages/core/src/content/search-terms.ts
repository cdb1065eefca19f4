/*
 * The words `memory_query` matches, as search terms. Text and query go through the same steps, so a
 * term matches whatever was written in any case, with or without accents, singular or plural:
 *
 * - A token is a run of letters, digits and marks, joined by `- _ . , : / @ # + '` when both sides are
 *   letters or digits: `PO-7001`, `invoice_total`, `1,200.50`, `anna@example.com`.
 * - Each token gives its parts (split at the joiners, at camelCase humps and between letters and
 *   digits: `fetchInvoice2` → `fetch`, `invoice`, `2`) and, when it has several, the whole token with
 *   the joiners removed (`po7001`, `1200.50` → `120050`), so an identifier matches both as a whole and
 *   by its parts, and a whole match scores higher (it matches more terms).
 * - Latin-script parts are folded (NFKD, accents dropped, lower case) and lightly stemmed (a plural
 *   `s`/`es`/`ies` is dropped): `Invoices` → `invoice`.
 * - Chinese, Japanese and Korean have no spaces: each run of those scripts gives its characters and its
 *   overlapping pairs (`東京都` → `東`, `京`, `都`, `東京`, `京都`), so a query of two characters finds the
 *   pair and a longer one finds the text holding most of its pairs.
 */

/** One term and where the text it came from is. */
export interface TermSpan {
  term: string
  /** UTF-16 offsets of the token in the text. */
  start: number
  end: number
}

const TOKEN = /[\p{L}\p{N}\p{M}]+(?:[-_.,:/@#+'’][\p{L}\p{N}\p{M}]+)*/gu
const JOINERS = /[-_.,:/@#+'’]/
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u
const CJK_RUNS =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu
/** Boundaries inside a part: lower→Upper (`fetchInvoice`), UPPER→Upper lower (`HTTPServer`), letter↔digit. */
const HUMPS = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u
const ASCII = /^[\x20-\x7e]*$/
/** A token of one part: a lower-case, capitalised or upper-case ASCII word, or digits. */
const SIMPLE = /^(?:[A-Z]?[a-z]+|[A-Z]+|[0-9]+)$/

/** Words too common to tell texts apart; dropped from a query that has other words. */
const STOP_WORDS = /* @__PURE__ */ new Set(
  (
    'a an and are as at be but by do does did for from has have had how i in is it its me my of on or our ' +
    'so than that the their them then there these they this to was we were what when where which who why ' +
    'will with you your'
  ).split(' '),
)

/** A light English stemmer for folded Latin words: plural endings only, so it rarely joins unrelated words. */
function stem(word: string): string {
  // Every rule ends in "s" (char code 115): most words leave here.
  if (word.length <= 3 || word.charCodeAt(word.length - 1) !== 115 || !/^[a-z]+$/.test(word)) return word
  if (word.endsWith('ies') && !/[ae]ies$/.test(word)) return `${word.slice(0, -3)}y`
  if (/(?:ss|x|ch|sh|z)es$/.test(word)) return word.slice(0, -2)
  if (word.endsWith('es') && !/[aeo]es$/.test(word)) return word.slice(0, -1)
  if (word.endsWith('s') && !/(?:us|ss|is)$/.test(word)) return word.slice(0, -1)
  return word
}

/** Folds a Latin-script (or any non-CJK) part: compatibility forms, accents and case. */
function fold(part: string): string {
  const lower = ASCII.test(part)
    ? part.toLowerCase()
    : part.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()
  return stem(lower)
}

/** Visits the terms of a non-CJK token (`start` is the token's offset in the text). */
function visitToken(
  token: string,
  start: number,
  visit: (term: string, start: number, end: number) => void,
  asciiScan = true,
) {
  const end = start + token.length
  // Most tokens are one plain word or number: no joiner, no hump to split at.
  if (SIMPLE.test(token)) {
    visit(stem(token.toLowerCase()), start, end)
    return
  }
  if (asciiScan && visitAsciiToken(token, start, visit)) return
  const pieces = JOINERS.test(token) ? token.split(JOINERS) : [token]
  let whole = ''
  let count = 0
  for (const piece of pieces) {
    const parts = piece.split(HUMPS)
    for (const part of parts) {
      const term = fold(part)
      if (term.length > 0) visit(term, start, end)
      count++
    }
    whole += piece
  }
  if (count > 1) {
    const term = fold(whole)
    if (term.length > 0) visit(term, start, end)
  }
}

/** Character classes of the ASCII scanner. */
const Kind = { Lower: 0, Upper: 1, Digit: 2, Joiner: 3 } as const
type Kind = (typeof Kind)[keyof typeof Kind]

function kindOf(code: number): Kind | undefined {
  if (code >= 97 && code <= 122) return Kind.Lower
  if (code >= 65 && code <= 90) return Kind.Upper
  if (code >= 48 && code <= 57) return Kind.Digit
  // - _ . , : / @ # + '
  if (
    code === 45 ||
    code === 95 ||
    code === 46 ||
    code === 44 ||
    code === 58 ||
    code === 47 ||
    code === 64 ||
    code === 35 ||
    code === 43 ||
    code === 39
  )
    return Kind.Joiner
  return undefined
}

/**
 * The same terms as the general path for an all-ASCII token, by one scan of its characters instead of
 * three regular expressions (tool results are mostly ASCII identifiers). False when the token is not
 * ASCII: the general path takes it.
 */
function visitAsciiToken(
  token: string,
  start: number,
  visit: (term: string, start: number, end: number) => void,
): boolean {
  const kinds: Kind[] = []
  for (let index = 0; index < token.length; index++) {
    const kind = kindOf(token.charCodeAt(index))
    if (kind === undefined) return false
    kinds.push(kind)
  }
  const end = start + token.length
  let whole = ''
  let parts = 0
  let from = 0
  const flush = (to: number) => {
    if (to > from) {
      const part = token.slice(from, to).toLowerCase()
      visit(stem(part), start, end)
      whole += part
      parts++
    }
  }
  for (let index = 0; index < token.length; index++) {
    const kind = kinds[index]!
    if (kind === Kind.Joiner) {
      flush(index)
      from = index + 1
      continue
    }
    const previous = index > from ? kinds[index - 1]! : undefined
    const next = kinds[index + 1]
    const hump =
      previous !== undefined &&
      ((previous === Kind.Lower && kind === Kind.Upper) ||
        (previous === Kind.Upper && kind === Kind.Upper && next === Kind.Lower) ||
        (previous === Kind.Digit) !== (kind === Kind.Digit))
    if (hump) {
      flush(index)
      from = index
    }
  }
  flush(token.length)
  if (parts > 1) visit(stem(whole), start, end)
  return true
}

/** Visits the characters and overlapping pairs of a CJK run. */
function visitCjk(run: string, start: number, visit: (term: string, start: number, end: number) => void) {
  const chars = Array.from(run)
  let offset = start
  for (let index = 0; index < chars.length; index++) {
    const char = chars[index]!
    visit(char, offset, offset + char.length)
    const next = chars[index + 1]
    if (next !== undefined) visit(char + next, offset, offset + char.length + next.length)
    offset += char.length
  }
}

/**
 * Calls `visit` with every term of the text, in order, and where its token is. At most `maxChars` of the
 * text are read (a snippet of a huge page does not need its end).
 */
function visitTerms(
  text: string,
  visit: (term: string, start: number, end: number) => void,
  maxChars = Number.POSITIVE_INFINITY,
  asciiScan = true,
): void {
  const source = text.length > maxChars ? text.slice(0, maxChars) : text
  TOKEN.lastIndex = 0
  for (let match = TOKEN.exec(source); match !== null; match = TOKEN.exec(source)) {
    const token = match[0]
    if (!CJK.test(token)) {
      visitToken(token, match.index, visit, asciiScan)
      continue
    }
    // A token mixing scripts (`東京tower`): CJK runs by character, the rest as words.
    CJK_RUNS.lastIndex = 0
    for (let run = CJK_RUNS.exec(token); run !== null; run = CJK_RUNS.exec(token)) {
      const at = match.index + run.index
      if (CJK.test(run[0])) visitCjk(run[0], at, visit)
      else
        for (const word of run[0].matchAll(/[\p{L}\p{N}\p{M}]+/gu))
          visitToken(word[0], at + word.index, visit)
    }
  }
}

/**
 * Every term of a text, in order, repeats included. `asciiScan: false` takes the general path for
 * ASCII tokens too (tests compare the two).
 */
export function termsOf(text: string, { asciiScan = true }: { asciiScan?: boolean } = {}): string[] {
  const terms: string[] = []
  visitTerms(
    text,
    (term) => {
      terms.push(term)
    },
    Number.POSITIVE_INFINITY,
    asciiScan,
  )
  return terms
}

/** An identifier a query names whole (`PO-7001`): its whole term and its parts, as indexes of the query's terms. */
export interface QueryIdentifier {
  whole: number
  /** The parts the query holds only as parts of an identifier (not as words or wholes of their own). */
  parts: number[]
}

/** A query's distinct terms, and the identifiers it names whole. */
export interface SearchQuery {
  terms: string[]
  identifiers: QueryIdentifier[]
}

/**
 * A query's distinct terms, in order (common words dropped unless the query holds nothing else), and
 * each identifier it names whole with the terms it holds only as that identifier's parts: the ranking
 * counts those parts at a fraction, so an entry holding `INV-2024-6` outranks entries holding `6`.
 */
export function searchQuery(text: string): SearchQuery {
  // The terms of one token share its span: a token of several terms is an identifier, its whole last.
  const tokens: string[][] = []
  let span = { start: -1, end: -1 }
  visitTerms(text, (term, start, end) => {
    if (start === span.start && end === span.end) tokens.at(-1)!.push(term)
    else {
      tokens.push([term])
      span = { start, end }
    }
  })
  const all = [...new Set(tokens.flat())]
  const kept = all.filter((term) => !STOP_WORDS.has(term))
  const terms = kept.length > 0 ? kept : all
  const index = new Map(terms.map((term, at) => [term, at]))
  // Words and wholes count in full wherever else they are a part.
  const plain = new Set(tokens.map((token) => token.at(-1)!))
  const identifiers = new Map<number, Set<number>>()
  for (const token of tokens) {
    // A whole folded to one of its parts (`Dana's` → `dana`, `s`) names nothing more than its words.
    if (token.length < 2 || token.indexOf(token.at(-1)!) < token.length - 1) continue
    const whole = index.get(token.at(-1)!)
    if (whole === undefined) continue
    const parts = identifiers.get(whole) ?? new Set<number>()
    identifiers.set(whole, parts)
    for (const part of token.slice(0, -1)) {
      const at = index.get(part)
      if (at !== undefined && !plain.has(part)) parts.add(at)
    }
  }
  return {
    terms,
    identifiers: [...identifiers].map(([whole, parts]) => ({ whole, parts: [...parts] })),
  }
}

/** The distinct terms of a query, in order; common words dropped unless the query holds nothing else. */
export function queryTerms(text: string): string[] {
  return searchQuery(text).terms
}

/** Every term with its span in the text, in order. */
export function termSpans(text: string, maxChars?: number): TermSpan[] {
  const spans: TermSpan[] = []
  visitTerms(text, (term, start, end) => spans.push({ term, start, end }), maxChars)
  return spans
}
