import { StrataError } from '../errors'
import type { TokenCounter } from './token-counter'

/** Options of {@link tokenEstimator}. */
export interface TokenEstimatorOptions {
  /**
   * Multiplies every estimate. Raise it for a model whose tokenizer is less efficient than OpenAI's
   * `o200k_base` and `cl100k_base`, which the estimator is calibrated against. Must be positive.
   * @default 1
   */
  multiplier?: number
}

/**
 * The default token counter: a fast, offline estimate that does not undercount OpenAI's
 * `o200k_base` or `cl100k_base` tokenizers on real text (prose, code, JSON, CJK, emoji, numbers,
 * base64 and hex, whitespace) and stays within about 1.1–1.5× of them on English and code.
 *
 * It makes one pass over the string and charges each character by its class and the class of the
 * character before it, because that is how byte-pair tokenizers behave: they first split text into
 * pieces (a word with its leading space, up to three digits, a run of punctuation, a run of
 * whitespace) and then merge bytes inside each piece using a vocabulary learnt from real text.
 * - A piece start costs about one token; letters that continue an English-like word cost a tenth of
 *   one, unusual letter pairs (random identifiers, base64) almost a whole one, and a lower-to-upper
 *   case change starts a new piece.
 * - Digits cost exactly one token per group of three; runs of spaces, newlines, tabs or one repeated
 *   symbol cost a fraction per character; punctuation pairs that the vocabularies know cost half.
 * - Han, kana, hangul, Cyrillic and the other scripts it knows cost a calibrated amount per
 *   character once a word of that script has started; the first character of such a word, and every
 *   character it does not know, costs its UTF-8 length in bytes, the most a byte-level tokenizer
 *   can spend on it.
 * - One token of headroom is added to every non-empty text: on a short string, whether a fragment
 *   happens to be in the vocabulary can change the count by one.
 *
 * The costs were fitted by linear programming against both tokenizers, on prose, code, JSON,
 * markup and text in twenty languages, with random strings as extra constraints, then rounded up.
 * Two rare ideographs in a row can still cost more than estimated; real text is not made of them.
 *
 * @example
 * const counter = tokenEstimator()
 * counter.count('Hello, world!') // 5 (o200k_base: 4)
 */
export function tokenEstimator({ multiplier = 1 }: TokenEstimatorOptions = {}): TokenCounter {
  if (!(Number.isFinite(multiplier) && multiplier > 0)) {
    throw new StrataError({
      code: 'STRATA_INVALID_OPTIONS',
      message: `tokenEstimator: multiplier must be a positive finite number, got ${String(multiplier)}.`,
      details: { multiplier },
    })
  }
  return {
    name: 'estimator',
    count: (text) => (text.length === 0 ? 0 : Math.ceil((estimateCost(text) + HEADROOM) * multiplier)),
  }
}

// Every cost is a multiple of 1/32, so that sums are exact in floating point and the rounding at the
// end never depends on the order of additions.
const HEADROOM = 1

// ASCII letters.
const WORD_START = 1
const WORD_START_AFTER_PUNCTUATION = 1.125
const WORD_START_AFTER_DIGIT = 1.5
const WORD_START_AT_LINE_START = 1
const WORD_START_AT_TEXT_START = 2
const LETTER_AFTER_ACCENTED_LETTER = 0.8125
const LOWER_COMMON_PAIR = 0.09375
const LOWER_COMMON_PAIR_LONG_WORD = 0.25
const LONG_WORD = 6
const LOWER_RARE_PAIR = 0.875
const LOWER_AFTER_UPPER_COMMON_PAIR = 0.25
const LOWER_AFTER_UPPER_RARE_PAIR = 0.75
const UPPER_AFTER_LOWER = 1
const UPPER_AFTER_UPPER_COMMON_PAIR = 0.25
const UPPER_AFTER_UPPER_RARE_PAIR = 1.3125
// Digits and whitespace.
const DIGIT_GROUP = 1
const SPACE_BEFORE_DIGIT = 1
const SECOND_SPACE = 1
const FURTHER_SPACE = 0.03125
const NEWLINE = 1
const NEWLINE_AFTER_PUNCTUATION = 0.25
const FURTHER_NEWLINE = 0.15625
const TAB = 0.5
const FURTHER_TAB = 0.125
// ASCII punctuation and control characters.
const PUNCTUATION_AFTER_LETTER = 0.5
const PUNCTUATION_AFTER_DIGIT = 1.125
const PUNCTUATION_AFTER_SPACE = 1.1875
const PUNCTUATION_AT_LINE_START = 1.125
const PUNCTUATION_AT_TEXT_START = 2
const PUNCTUATION_AFTER_OTHER = 1
const REPEATED_PUNCTUATION = 0.0625
const KNOWN_PUNCTUATION_PAIR = 0.5
const UNKNOWN_PUNCTUATION_PAIR = 1.125
const CONTROL = 2
const CONTROL_AFTER_SPACE = 1
// Other scripts, per character after the first of a word; a new word after a space adds a start.
const SCRIPT_WORD_START = 1
const HAN = 1.4375
const KANA = 1
const CJK_PUNCTUATION = 1.25
const HANGUL = 1.125
const CYRILLIC = 0.5625
const GREEK = 1.0625
const HEBREW = 1
const ARABIC = 0.6875
const LATIN_1_LETTER = 1.1875
const LATIN_EXTENDED_LETTER = 1
const VIETNAMESE_LETTER = 0.75
const INDIC = 1.125
const THAI = 1
// Symbols.
const LATIN_1_SYMBOL = 0.75
const TYPOGRAPHIC_PUNCTUATION = 0.5
const EMOJI = 3.125
const EMOJI_JOINER = 1.25

// Character classes of the state machine. Scripts other than ASCII are tracked separately.
const LOWER = 1
const UPPER = 2
const DIGIT = 3
const SPACE = 4
const LINE_BREAK = 5
const TAB_CHARACTER = 6
const PUNCTUATION = 7
const CONTROL_CHARACTER = 8
const OTHER = 9

const LATIN = 1
const CJK = 2
const HANGUL_SCRIPT = 3
const CYRILLIC_SCRIPT = 4
const GREEK_SCRIPT = 5
const HEBREW_SCRIPT = 6
const ARABIC_SCRIPT = 7
const INDIC_SCRIPT = 8
const THAI_SCRIPT = 9

const ASCII_CLASS = new Uint8Array(128)
for (let code = 0; code < 128; code++) {
  ASCII_CLASS[code] =
    code >= 97 && code <= 122
      ? LOWER
      : code >= 65 && code <= 90
        ? UPPER
        : code >= 48 && code <= 57
          ? DIGIT
          : code === 32
            ? SPACE
            : code === 10 || code === 13
              ? LINE_BREAK
              : code === 9
                ? TAB_CHARACTER
                : code < 32 || code === 127
                  ? CONTROL_CHARACTER
                  : PUNCTUATION
}

/**
 * For each letter, the letters that commonly follow it: the 300 most frequent of the 676 pairs in
 * English technical writing and code identifiers. Random letters hit a rare pair about every other
 * character; English words almost never do.
 */
const COMMON_LETTER_PAIRS = [
  'bcdefgiklmnprstuvwxy',
  'aeijlorsuy',
  'acehijklmorstu',
  'adeilosu',
  'abcdefghijlmnopqrstvwxy',
  'adefilnorstuy',
  'aehilnorstu',
  'aeimortu',
  'abcdefglmnoprstvxz',
  'aes',
  'aeis',
  'abdegilostuvy',
  'abdeijlmopsuy',
  'acdefgiklmnopstuvy',
  'abcdefgiklmnoprstuvw',
  'aehiloprstuy',
  'u',
  'acdefgiklmnorstuvy',
  'acefhiklopstuy',
  'acdefhilmoprstuwy',
  'abcdefgilmnprst',
  'aeimo',
  'aehinors',
  'aceipt',
  'aimnpst',
  'e',
]

/** Bit `b` of entry `a` is set when letter `b` commonly follows letter `a` (both 0–25). */
const LETTER_PAIR_BITS = new Uint32Array(26)
for (let first = 0; first < 26; first++) {
  for (const next of COMMON_LETTER_PAIRS[first]!) LETTER_PAIR_BITS[first]! |= 1 << (next.charCodeAt(0) - 97)
}

/**
 * For each ASCII punctuation character, those that form a single token with it in both
 * vocabularies (`");`, `=>`, `},`): code and JSON are full of them, random symbols less so.
 */
const KNOWN_PUNCTUATION_PAIRS: Record<string, string> = {
  '!': `!"'()*,./:;<=?[\\]_{|}`,
  '"': `"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`,
  '#': `!"#$+,./:;[{`,
  $: `$(,./:;<?[\\_{|`,
  '%': `!"%'(),-.;<=>@[\\]^\`{|}~`,
  '&': `#&(),?_`,
  "'": `"#$%'()*+,-./:;<=>?[\\]^_{|}~`,
  '(': `!"#$%&'()*+-./:;<>?@[\\^_\`{|~`,
  ')': `!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`,
  '*': `"$&()*,-./:;<=>?@[\\]^_\`{|}~`,
  '+': `"#$'()+,-./:;<=[\\]{|}`,
  ',': `!"#$%&'()*+,-./:;<?@[\\_\`{|`,
  '-': `"$%&'()*,-./;<=>?[\\]^_{|}~`,
  '.': `!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`,
  '/': `"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`,
  ':': `"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`,
  ';': `"$%&'(),-./;<=[\\]{|}`,
  '<': `!$&'(-/;<=>?[\\]^_{|}~`,
  '=': `!"#$%&'(*-./:;<=>?@[\\]^_\`{|}~`,
  '>': `"#$%&'()*,-./:;<=>?@[\\]^_\`{|}~`,
  '?': `!"$'(),-.:;<>?[\\^_{|~`,
  '@': `"$(;<@[\\\`{|`,
  '[': `"#$%'(*,-/:;<=>?@[\\]^_\`{|}~`,
  '\\': `"$'(-./:;<[\\{|`,
  ']': `"%&'()*+,-./:;<=>?[\\]^_{|}~`,
  '^': `(-.;<>[\\^{|~`,
  _: `"$%'()*,-./:;<=>?[\\]^_{|}~`,
  '`': `),.:;<=@[\\]\`{|}`,
  '{': `"$%'-/:;<=@[\\]\`{|}`,
  '|': `"(-<\\|`,
  '}': `"$%&'(),-./:;<=>?@[\\]^_\`{|}~`,
  '~': `,-/=>]^}~`,
}

/** Bit `b - 32` of entry `a` is set when the pair of ASCII codes `a`, `b` is a known pair. */
const PUNCTUATION_PAIR_BITS = new Uint32Array(128)
for (const [first, nexts] of Object.entries(KNOWN_PUNCTUATION_PAIRS)) {
  for (const next of nexts) PUNCTUATION_PAIR_BITS[first.charCodeAt(0)]! |= 1 << (next.charCodeAt(0) - 32)
}

/** Symbols that vocabularies learn as runs (`----`, `====`, `////`): each repeat costs little. */
const RUN_SYMBOLS = new Set(Array.from('-=*#_~./`+<>', (symbol) => symbol.charCodeAt(0)))

/** Curly quotes, dashes, bullet and ellipsis: common in prose, usually merged with their neighbours. */
const TYPOGRAPHIC = new Set([0x2013, 0x2014, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2026])

function isCjkPunctuation(code: number): boolean {
  // 、 。 〈〉《》「」『』【】 and the fullwidth ！（），：；？ that the vocabularies know.
  if (code === 0x3001 || code === 0x3002 || (code >= 0x3008 && code <= 0x3011)) return true
  return code >= 0xff01 && code <= 0xff1f && code !== 0xff02 && code !== 0xff03 && code !== 0xff04 && code !== 0xff07
}

/** The cost of `text` before headroom and multiplier. */
function estimateCost(text: string): number {
  let total = 0
  let previous = 0 // class of the previous character
  let previousCode = -1
  let run = 0 // how many characters of the previous class in a row
  let spaces = 0 // length of the current run of spaces
  let script = 0 // script of the last letter, across spaces and punctuation
  const length = text.length
  for (let index = 0; index < length; index++) {
    let code = text.charCodeAt(index)
    let current = OTHER
    if (code < 128) {
      current = ASCII_CLASS[code]!
      switch (current) {
        case LOWER:
          if (previous === LOWER) {
            const common = (LETTER_PAIR_BITS[previousCode - 97]! >>> (code - 97)) & 1
            total += common ? (run < LONG_WORD ? LOWER_COMMON_PAIR : LOWER_COMMON_PAIR_LONG_WORD) : LOWER_RARE_PAIR
          } else if (previous === UPPER) {
            const common = (LETTER_PAIR_BITS[previousCode - 65]! >>> (code - 97)) & 1
            total += common ? LOWER_AFTER_UPPER_COMMON_PAIR : LOWER_AFTER_UPPER_RARE_PAIR
          } else {
            total += wordStart(previous, script)
          }
          script = LATIN
          break
        case UPPER:
          if (previous === UPPER) {
            const common = (LETTER_PAIR_BITS[previousCode - 65]! >>> (code - 65)) & 1
            total += common ? UPPER_AFTER_UPPER_COMMON_PAIR : UPPER_AFTER_UPPER_RARE_PAIR
          } else {
            total += previous === LOWER ? UPPER_AFTER_LOWER : wordStart(previous, script)
          }
          script = LATIN
          break
        case DIGIT:
          // Both tokenizers split digit runs into groups of three, and every group is one token.
          if (previous !== DIGIT || run % 3 === 0) total += DIGIT_GROUP
          if (previous === SPACE) total += SPACE_BEFORE_DIGIT
          break
        case SPACE:
          // A single space joins the word after it; a longer run leaves all but its last space behind.
          spaces = previous === SPACE ? spaces + 1 : 1
          if (spaces === 2) total += SECOND_SPACE
          else if (spaces > 2) total += FURTHER_SPACE
          break
        case LINE_BREAK:
          total += previous === LINE_BREAK ? FURTHER_NEWLINE : previous === PUNCTUATION ? NEWLINE_AFTER_PUNCTUATION : NEWLINE
          break
        case TAB_CHARACTER:
          total += previous === TAB_CHARACTER ? FURTHER_TAB : TAB
          break
        case CONTROL_CHARACTER:
          total += previous === SPACE ? CONTROL + CONTROL_AFTER_SPACE : CONTROL
          break
        default:
          total += punctuationCost(code, previous, previousCode)
      }
    } else {
      if (code >= 0xd800 && code < 0xdc00 && index + 1 < length) {
        const low = text.charCodeAt(index + 1)
        if (low >= 0xdc00 && low < 0xe000) {
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00)
          index++
        }
      }
      const bytes = code < 0x800 ? 2 : code < 0x10000 ? 3 : 4
      // A space before a character that does not join it is a token of its own.
      const afterSpace = previous === SPACE && spaces === 1
      const letter = scriptLetter(code)
      if (letter !== 0) {
        const letterScript = letter >> 8
        if (letterScript === script) total += LETTER_COSTS[letter & 255]! + (afterSpace ? SCRIPT_WORD_START : 0)
        else total += bytes + (afterSpace ? 1 : 0)
        script = letterScript
      } else if (isCjkPunctuation(code)) {
        total += CJK_PUNCTUATION
        script = CJK
      } else if (code >= 0xa0 && code <= 0xbf) total += LATIN_1_SYMBOL
      else if (code >= 0x1f000 && code <= 0x1faff) total += EMOJI
      else if (code === 0x200d || code === 0xfe0f) total += EMOJI_JOINER
      else if (TYPOGRAPHIC.has(code)) total += TYPOGRAPHIC_PUNCTUATION
      else {
        total += bytes + (afterSpace ? 1 : 0)
        script = 0
      }
    }
    run = current === previous ? run + 1 : 1
    previous = current
    previousCode = code
  }
  // A trailing single space is a token of its own.
  if (previous === SPACE && spaces === 1) total += 1
  return total
}

function wordStart(previous: number, script: number): number {
  switch (previous) {
    case SPACE:
      return WORD_START
    case PUNCTUATION:
      return WORD_START_AFTER_PUNCTUATION
    case DIGIT:
      return WORD_START_AFTER_DIGIT
    case OTHER:
      return script === LATIN ? LETTER_AFTER_ACCENTED_LETTER : WORD_START
    case LINE_BREAK:
    case TAB_CHARACTER:
      return WORD_START_AT_LINE_START
    default:
      return WORD_START_AT_TEXT_START
  }
}

function punctuationCost(code: number, previous: number, previousCode: number): number {
  switch (previous) {
    case PUNCTUATION:
      if (code === previousCode && RUN_SYMBOLS.has(code)) return REPEATED_PUNCTUATION
      return (PUNCTUATION_PAIR_BITS[previousCode]! >>> (code - 32)) & 1 ? KNOWN_PUNCTUATION_PAIR : UNKNOWN_PUNCTUATION_PAIR
    case LOWER:
    case UPPER:
      return PUNCTUATION_AFTER_LETTER
    case DIGIT:
      return PUNCTUATION_AFTER_DIGIT
    case SPACE:
      return PUNCTUATION_AFTER_SPACE
    case OTHER:
      return PUNCTUATION_AFTER_OTHER
    case LINE_BREAK:
    case TAB_CHARACTER:
      return PUNCTUATION_AT_LINE_START
    default:
      return PUNCTUATION_AT_TEXT_START
  }
}

/** Per-character costs of the letters {@link scriptLetter} recognises, by their low byte. */
const LETTER_COSTS = [HAN, KANA, HANGUL, CYRILLIC, GREEK, HEBREW, ARABIC, LATIN_1_LETTER, LATIN_EXTENDED_LETTER]
LETTER_COSTS.push(VIETNAMESE_LETTER, INDIC, THAI)

/**
 * `script << 8 | index into LETTER_COSTS` for the letters of a script with a calibrated cost, 0 for
 * anything else. Only the common letters of each script are listed, because a rare letter costs up
 * to its byte length.
 */
function scriptLetter(code: number): number {
  if (code >= 0x4e00 && code <= 0x9fff) return (CJK << 8) | 0
  if (code >= 0x3041 && code <= 0x30fa) return (CJK << 8) | 1
  if (code >= 0xac00 && code <= 0xd7a3) return (HANGUL_SCRIPT << 8) | 2
  if ((code >= 0x410 && code <= 0x44f) || code === 0x401 || code === 0x451) return (CYRILLIC_SCRIPT << 8) | 3
  if (code >= 0x391 && code <= 0x3ce) return (GREEK_SCRIPT << 8) | 4
  if (code >= 0x5d0 && code <= 0x5ea) return (HEBREW_SCRIPT << 8) | 5
  if (code >= 0x621 && code <= 0x64a) return (ARABIC_SCRIPT << 8) | 6
  if (code >= 0xc0 && code <= 0xff && code !== 0xd7 && code !== 0xf7) return (LATIN << 8) | 7
  if (code >= 0x100 && code <= 0x17f) return (LATIN << 8) | 8
  if (code >= 0x1e00 && code <= 0x1eff) return (LATIN << 8) | 9
  if (code >= 0x900 && code <= 0xdff) return (INDIC_SCRIPT << 8) | 10
  if (code >= 0xe00 && code <= 0xeff) return (THAI_SCRIPT << 8) | 11
  return 0
}
