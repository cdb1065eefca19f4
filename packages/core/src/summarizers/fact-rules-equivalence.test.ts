import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { answerFact, holdsGeneratedId, otherPronouns, userFact } from './fact-rules'
import { textArbitrary } from './pattern-arbitraries'
import { RecentSet } from './pattern-reading'
import { bareWords, countBareWords } from './text-scan'

/*
 * The fact rules' word scans were rewritten for speed (character scans, each pattern tried only when a
 * word has what it needs; the pronoun rewrites skipped when no first-person word stands in the text).
 * Their results must not change: each is compared here, on generated input, with the implementation it
 * replaced, kept below as the reference.
 */

// ---- The implementations before the rewrite, verbatim. ----

const GENERATED_WORD = [
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  /^[a-z]{2,6}_(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{4,}$/,
  /^(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{12,}$/i,
  /^(?=\S*\d)(?=\S*[a-z])(?=\S*[A-Z])[A-Za-z0-9_=+/-]{16,}$/,
  /^[A-Z]{2,}(?:_[A-Z]{2,})+$/,
  /^(?:ERR|ERROR|HTTP|E)_[A-Z0-9_]+$/,
  /^E(?:CONNREFUSED|CONNRESET|CONNABORTED|TIMEDOUT|NOENT|ACCES|ADDRINUSE|ADDRNOTAVAIL|PIPE|NOTFOUND|AI_AGAIN|HOSTUNREACH|NETUNREACH|PERM|EXIST|NOTDIR|ISDIR|MFILE|NOSPC|NOTEMPTY|BUSY|INVAL|PROTO)$/,
]
const ERROR_WORD = /^(?:error|errors|errorcode|err)$/i
const EDGE = /^[("'“‘«[{<（「『]+|[)"'”’»\]}>.,;:!?…）」』，。！？、]+$/gu

function oldHoldsGeneratedId(text: string): boolean {
  const words = text.split(/[\s,;，、。]+/u)
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!.replace(EDGE, '')
    if (word.length === 0 || word.length > 200) continue
    if (GENERATED_WORD.some((pattern) => pattern.test(word))) return true
    const before = (words[index - 1] ?? '').replace(EDGE, '')
    if (ERROR_WORD.test(before) && /\d/.test(word) && /^[A-Za-z0-9_-]+$/.test(word)) return true
  }
  return false
}

const oldWords = (text: string) =>
  text
    .split(/\s+/)
    .map((word) => word.replace(EDGE, ''))
    .filter((word) => word.length > 0)

const alone = (text: string, flags = '') =>
  new RegExp(`(?<![\\w@-]|\\w[./])${text}(?![\\w@-]|[./]\\w)`, `g${flags}`)
const PRONOUNS: readonly [RegExp, string, string][] = [
  [alone("I'm", 'i'), "they're", 'the user is'],
  [alone('I am', 'i'), 'they are', 'the user is'],
  [alone("I've", 'i'), 'they have', 'the user has'],
  [alone("I'll", 'i'), 'they will', 'the user will'],
  [alone("I'd", 'i'), 'they would', 'the user would'],
  [alone('I', 'i'), 'they', 'the user'],
  [alone('my', 'i'), 'their', "the user's"],
  [alone('our', 'i'), 'their', "the user's"],
  [alone('myself', 'i'), 'themselves', 'the user'],
  [alone('me', 'i'), 'the user', 'the user'],
]
function oldOtherPronouns(text: string, afterSubject = true): string {
  let worded = text
  for (const [pattern, after, elsewhere] of PRONOUNS)
    worded = worded.replace(pattern, afterSubject ? after : elsewhere)
  return worded
}

class OldRecentSet {
  readonly #stamps = new Map<string, number>()
  #clock = 0
  constructor(readonly keep: number) {}
  add(value: string) {
    this.#stamps.set(value, this.#clock++)
    if (this.#stamps.size > 2 * this.keep) this.#drop()
  }
  has(value: string): boolean {
    return this.#stamps.has(value)
  }
  newestFirst(): string[] {
    return [...this.#stamps].sort((a, b) => b[1] - a[1]).map(([value]) => value)
  }
  #drop() {
    const kept = [...this.#stamps].sort((a, b) => b[1] - a[1]).slice(0, this.keep)
    this.#stamps.clear()
    for (const [value, stamp] of kept.reverse()) this.#stamps.set(value, stamp)
  }
}

describe('the rewritten fact rules give what the regexes gave', () => {
  it('finds generated ids and error codes, splits words and rewords pronouns as before', () => {
    fc.assert(
      fc.property(textArbitrary, fc.boolean(), (text, afterSubject) => {
        expect(holdsGeneratedId(text)).toBe(oldHoldsGeneratedId(text))
        const words = oldWords(text)
        expect(bareWords(text)).toEqual(words)
        for (const most of [0, 1, 3]) expect(countBareWords(text, most)).toBe(Math.min(most, words.length))
        expect(otherPronouns(text, afterSubject)).toBe(oldOtherPronouns(text, afterSubject))
      }),
      { numRuns: 4_000 },
    )
  })

  it('words a sentence whose white space is collapsed already the same when told so', () => {
    fc.assert(
      fc.property(textArbitrary, fc.option(textArbitrary, { nil: undefined }), (text, offer) => {
        const flat = text.replace(/\s+/g, ' ').trim()
        const options = offer === undefined ? {} : { offer }
        expect(userFact(flat, { ...options, collapsed: true })).toEqual(userFact(flat, options))
        expect(answerFact(flat, { collapsed: true })).toEqual(answerFact(flat))
      }),
      { numRuns: 2_000 },
    )
  })

  it('keeps the same newest identifiers when it drops the oldest', () => {
    const mention = fc.oneof(fc.constantFrom('a', 'b', 'c', 'd'), fc.string({ maxLength: 3 }))
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(mention, { maxLength: 200 }), (keep, mentions) => {
        const recent = new RecentSet(keep)
        const old = new OldRecentSet(keep)
        for (const value of mentions) {
          recent.add(value)
          old.add(value)
        }
        expect(recent.newestFirst()).toEqual(old.newestFirst())
        for (const value of mentions) expect(recent.has(value)).toBe(old.has(value))
      }),
    )
  })
})
