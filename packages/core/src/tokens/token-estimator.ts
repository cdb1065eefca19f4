import { invalidOptions, shownValue } from '../errors'
import {
  ACCENTED_LETTER,
  ASCII_CLASS,
  COMMON_SYMBOLS,
  CONTROL_CHARACTER,
  DIGIT,
  isCjkPunctuation,
  isTypographic,
  LETTER_PAIR_BITS,
  LINE_BREAK,
  LOWER,
  OTHER,
  PUNCTUATION,
  PUNCTUATION_INDEX,
  PUNCTUATION_PAIR_BITS,
  RUN_SYMBOLS,
  SPACE,
  TAB_CHARACTER,
  TEXT_START,
  UPPER,
} from './character-tables'
import {
  ACCENTED_WORD_START,
  APOSTROPHE_AFTER_LETTER,
  ARABIC,
  BLOB_CHARACTER,
  BLOB_MIN_LENGTH,
  BLOB_START,
  BLOB_SWITCH_SHARE,
  CJK_PUNCTUATION,
  CJK_RUN_END,
  CONTROL,
  CONTROL_AFTER_SPACE,
  CYRILLIC,
  DIGIT_AFTER_LETTER,
  DIGIT_GROUP,
  EMOJI,
  EMOJI_JOINER,
  FURTHER_CARRIAGE_RETURN,
  FURTHER_MIXED_LINE_BREAK,
  FURTHER_TAB,
  GREEK,
  HAN,
  HANGUL,
  HANGUL_WORD_START,
  HEADROOM,
  HEBREW,
  HEX_CHARACTER,
  HEX_DIGIT_AFTER_LETTER,
  HEX_LETTER_AFTER_DIGIT,
  INDIC,
  KANA,
  KNOWN_PUNCTUATION_PAIR,
  LATIN_1_LETTER,
  LATIN_1_SYMBOL,
  LATIN_EXTENDED_LETTER,
  LETTER_AFTER_ACCENTED_LETTER,
  LETTER_AFTER_APOSTROPHE,
  LETTER_PAIR_NO_WORD,
  LONG_WORD,
  LONGEST_NEWLINE_TOKEN,
  LONGEST_SPACE_TOKEN,
  LOWER_AFTER_UPPER_COMMON_PAIR,
  LOWER_AFTER_UPPER_RARE_PAIR,
  LOWER_COMMON_PAIR,
  LOWER_COMMON_PAIR_LONG_WORD,
  LOWER_RARE_PAIR,
  NEWLINE,
  NEWLINE_AFTER_PUNCTUATION,
  NO_WORD,
  PUNCTUATION_AFTER_ACCENTED_LETTER,
  PUNCTUATION_AFTER_DIGIT,
  PUNCTUATION_AFTER_LETTER,
  PUNCTUATION_AFTER_OTHER,
  PUNCTUATION_AFTER_SPACE,
  PUNCTUATION_AT_LINE_START,
  PUNCTUATION_AT_TEXT_START,
  REPEATED_PUNCTUATION,
  SCRIPT_NO_WORD_BYTE,
  SCRIPT_START_BYTE,
  SCRIPT_WORD_START,
  SECOND_SPACE,
  SPACE_BEFORE_DIGIT,
  SYMBOL,
  TAB,
  TAB_AFTER_SPACE,
  THAI,
  TIMESTAMP_LETTER,
  TYPOGRAPHIC_PUNCTUATION,
  UNKNOWN_PUNCTUATION_PAIR,
  UPPER_AFTER_LOWER,
  UPPER_AFTER_UPPER_COMMON_PAIR,
  UPPER_AFTER_UPPER_RARE_PAIR,
  VIETNAMESE_LETTER,
  WORD_START,
  WORD_START_AFTER_DIGIT,
  WORD_START_AFTER_PUNCTUATION,
  WORD_START_AT_LINE_START,
  WORD_START_AT_TEXT_START,
} from './estimator-costs'
import type { TokenCounter } from './token-counter'

/** Options of {@link tokenEstimator}. */
export interface TokenEstimatorOptions {
  /**
   * Multiplies every estimate. Raise it for a model whose tokenizer is less efficient than OpenAI's
   * `o200k_base`, which the estimator is calibrated against (usage calibration corrects the rest as
   * reports come in). Must be positive.
   * @default 1
   */
  multiplier?: number
}

/**
 * The default token counter: a fast, offline estimate that does not undercount OpenAI's `o200k_base`
 * tokenizer (GPT-4o, GPT-4.1, GPT-5) and stays close to it. On texts of 200 tokens or more it is
 * typically 1.05–1.15× the `o200k_base` count on tool results, JSON, code and English, German or
 * French prose (up to 1.21× on a git diff); 1.0–1.5× on Chinese, Japanese and Korean, where what a
 * character costs depends on the words around it (formal and technical words merge into one token,
 * narrative ones less, rare ideographs not at all): the tokenizer's pairs of characters decide it, and
 * neither a rule about scripts nor a class per character can tell them apart; more on very short texts.
 *
 * It makes one pass over the string and charges each character by its class and the class of the
 * character before it, because that is how byte-pair tokenizers behave: they first split text into
 * pieces (a word with its leading space or punctuation, up to three digits, a run of punctuation, a run
 * of whitespace) and then merge bytes inside each piece using a vocabulary learnt from real text.
 * - A piece start costs about one token; letters that continue an English-like word cost little,
 *   unusual letter pairs a third of one, and a lower-to-upper case change starts a new piece.
 * - A long run of letters and digits that keeps switching between cases and digits is a blob
 *   (base64, hex, generated ids) and costs a steady amount per character instead.
 * - Digits cost exactly one token per group of three; runs of spaces, newlines or tabs cost a
 *   fraction per character; punctuation pairs that the vocabulary knows cost a third. In a short run
 *   of hex digits each switch between digits and letters is a token, and so are the `T` and `Z` of
 *   an ISO 8601 timestamp.
 * - Han, kana, hangul, accented Latin letters and the other scripts it knows cost a calibrated amount
 *   per character once a word of that script has started, and a clause of Han or kana costs more
 *   where it ends (at punctuation, a line break, or spaces before the next); the first character of a
 *   word costs part of its UTF-8 length, and every character it does not know all of it, the most a byte-level
 *   tokenizer can spend on it.
 * - Up to four tokens of headroom are added to every non-empty text (one per character below four),
 *   because on a short string, whether a fragment happens to be in the vocabulary changes the count.
 *   So a short text is overestimated by a few tokens ('Hello world': 8, `o200k_base`: 2).
 *
 * The costs were fitted by linear programming against `o200k_base` on a corpus of tool results, JSON,
 * code, prose and CJK written for this repository (a quarter of it held out from fitting), with random
 * strings of each category's characters and of all of Unicode as constraints, then rounded up. The CJK
 * costs were refitted on the CJK samples alone and on the same texts with their punctuation replaced by
 * spaces and line breaks, as chat is often written.
 *
 * @example
 * const counter = tokenEstimator()
 * counter.count('Hello, world!') // 8 (o200k_base: 4)
 */
export function tokenEstimator({ multiplier = 1 }: TokenEstimatorOptions = {}): TokenCounter {
  if (!(Number.isFinite(multiplier) && multiplier > 0)) {
    invalidOptions(
      `tokenEstimator: multiplier must be a positive finite number, got ${shownValue(multiplier)}.`,
      { multiplier },
    )
  }
  return {
    name: 'estimator',
    // The multiplier changes every count, so it is part of the version.
    version: multiplier === 1 ? ESTIMATOR_VERSION : `${ESTIMATOR_VERSION}x${multiplier}`,
    count: (text) =>
      text.length === 0 ? 0 : Math.ceil((estimateCost(text) + Math.min(HEADROOM, text.length)) * multiplier),
  }
}

/**
 * The estimator's algorithm: raised whenever a text's count changes, so that counts stored by an
 * earlier one are counted again. 2: long runs of spaces and line breaks cost more. (1 had no version.)
 */
const ESTIMATOR_VERSION = '2'

// Scripts whose common letters have a calibrated cost. A letter continues a word of its script when
// the last letter before it was of the same script, even across spaces and punctuation.
const LATIN = 1
const CJK = 2
const HANGUL_SCRIPT = 3
const CYRILLIC_SCRIPT = 4
const GREEK_SCRIPT = 5
const HEBREW_SCRIPT = 6
const ARABIC_SCRIPT = 7
const INDIC_SCRIPT = 8
const THAI_SCRIPT = 9

/**
 * `[first, last, script, cost]`: the common letters of each script and what each costs inside a word.
 * Rare letters are left out on purpose: they cost up to their UTF-8 length, and so they are charged.
 */
const LETTER_RANGES: readonly (readonly [first: number, last: number, script: number, cost: number])[] = [
  [0x4e00, 0x9fff, CJK, HAN], // CJK unified ideographs
  [0x3041, 0x30ff, CJK, KANA], // hiragana and katakana, with the prolonged sound mark ー
  [0x3005, 0x3005, CJK, HAN], // 々, the ideographic iteration mark
  [0xac00, 0xd7a3, HANGUL_SCRIPT, HANGUL], // hangul syllables
  [0x0410, 0x044f, CYRILLIC_SCRIPT, CYRILLIC], // А–я
  [0x0401, 0x0401, CYRILLIC_SCRIPT, CYRILLIC], // Ё
  [0x0451, 0x0451, CYRILLIC_SCRIPT, CYRILLIC], // ё
  [0x0391, 0x03ce, GREEK_SCRIPT, GREEK], // Α–ώ
  [0x05d0, 0x05ea, HEBREW_SCRIPT, HEBREW], // א–ת
  [0x0621, 0x063f, ARABIC_SCRIPT, ARABIC], // ء–ؿ
  [0x0641, 0x064a, ARABIC_SCRIPT, ARABIC], // ف–ي (not ـ, the stretching tatweel)
  [0x00c0, 0x00d6, LATIN, LATIN_1_LETTER], // À–Ö
  [0x00d8, 0x00f6, LATIN, LATIN_1_LETTER], // Ø–ö
  [0x00f8, 0x00ff, LATIN, LATIN_1_LETTER], // ø–ÿ
  [0x0100, 0x017f, LATIN, LATIN_EXTENDED_LETTER], // Latin Extended-A: ą č ę ł ő ř ş ž …
  [0x1e00, 0x1eff, LATIN, VIETNAMESE_LETTER], // Latin Extended Additional: ạ ả ấ ầ ẩ …
  [0x0900, 0x0dff, INDIC_SCRIPT, INDIC], // Devanagari to Sinhala
  [0x0e00, 0x0eff, THAI_SCRIPT, THAI], // Thai and Lao
]

/** The index in {@link LETTER_RANGES} of the range holding `code`, or -1. */
function letterRange(code: number): number {
  for (let index = 0; index < LETTER_RANGES.length; index++) {
    const range = LETTER_RANGES[index]!
    if (code >= range[0] && code <= range[1]) return index
  }
  return -1
}

/** The cost of `text` before headroom and multiplier. */
function estimateCost(text: string): number {
  let total = 0
  let previous = TEXT_START // class of the previous character
  let previousCode = -1
  let previousCode2 = -1 // the code before that
  let previousClass2 = TEXT_START // and its class
  let run = 0 // characters of the previous class in a row
  // The current run of ASCII letters and digits: what was spent before it, its length, and how often it
  // switched between lower case, upper case and digits (a blob: base64, hex, generated ids).
  let alnumBefore = 0
  let alnumLength = 0
  let alnumSwitches = 0
  let alnumHex = true // every character of the run is a digit or a–f
  let spaces = 0 // length of the current run of spaces
  let script = 0 // script of the last letter
  let cjkRun = false // whether the previous character was a Han or kana letter
  let cjkSpaced = false // a Han or kana run ended with spaces: a clause ends if another starts
  const length = text.length
  for (let index = 0; index < length; index++) {
    const totalBefore = total
    let cjkLetter = false
    let code = text.charCodeAt(index)
    let current = OTHER
    if (code < 128) {
      current = ASCII_CLASS[code]!
      switch (current) {
        case LOWER:
          if (previous === LOWER) {
            const common = (LETTER_PAIR_BITS[previousCode - 97]! >>> (code - 97)) & 1
            if (!common) total += LOWER_RARE_PAIR
            else if (run < LONG_WORD) total += LOWER_COMMON_PAIR
            else total += run < NO_WORD ? LOWER_COMMON_PAIR_LONG_WORD : LETTER_PAIR_NO_WORD
          } else if (previous === UPPER) {
            const common = (LETTER_PAIR_BITS[previousCode - 65]! >>> (code - 97)) & 1
            total += common ? LOWER_AFTER_UPPER_COMMON_PAIR : LOWER_AFTER_UPPER_RARE_PAIR
          } else if (previousCode === 39 && isLetterClass(previousClass2)) {
            total += LETTER_AFTER_APOSTROPHE
          } else if (previous === DIGIT && alnumHex && code <= 102) {
            total += HEX_LETTER_AFTER_DIGIT
          } else {
            total += wordStart(previous)
          }
          script = LATIN
          break
        case UPPER:
          if (previous === UPPER) {
            const common = (LETTER_PAIR_BITS[previousCode - 65]! >>> (code - 65)) & 1
            if (!common) total += UPPER_AFTER_UPPER_RARE_PAIR
            else total += run < NO_WORD ? UPPER_AFTER_UPPER_COMMON_PAIR : LETTER_PAIR_NO_WORD
          } else {
            total +=
              previous === LOWER
                ? UPPER_AFTER_LOWER
                : previous === DIGIT && isTimestampLetter(code, text.charCodeAt(index + 1))
                  ? TIMESTAMP_LETTER
                  : wordStart(previous)
          }
          script = LATIN
          break
        case DIGIT:
          // Both tokenizers split digit runs into groups of three, and every group is one token.
          if (previous === LOWER && alnumHex && previousCode <= 102 && alnumSwitches > 0)
            total += HEX_DIGIT_AFTER_LETTER
          else if (previous === LOWER || previous === UPPER) total += DIGIT_AFTER_LETTER
          else if (previous !== DIGIT || run % 3 === 0) total += DIGIT_GROUP
          if (previous === SPACE) total += SPACE_BEFORE_DIGIT
          break
        case SPACE:
          // A single space joins the word after it; a longer run leaves all but its last space behind.
          spaces = previous === SPACE ? spaces + 1 : 1
          if (spaces === 2) total += SECOND_SPACE
          else if (spaces > 2 && spaces % LONGEST_SPACE_TOKEN === 1) total += 1
          break
        case LINE_BREAK:
          if (previous !== LINE_BREAK) total += previous === PUNCTUATION ? NEWLINE_AFTER_PUNCTUATION : NEWLINE
          else if (code !== previousCode) total += FURTHER_MIXED_LINE_BREAK
          else if (code !== 10) total += FURTHER_CARRIAGE_RETURN
          else if (run % LONGEST_NEWLINE_TOKEN === 0) total += 1
          break
        case TAB_CHARACTER:
          total += previous === TAB_CHARACTER ? FURTHER_TAB : previous === SPACE ? TAB_AFTER_SPACE : TAB
          break
        case CONTROL_CHARACTER:
          total += previous === SPACE ? CONTROL + CONTROL_AFTER_SPACE : CONTROL
          break
        default:
          total +=
            code === 39 && (previous === LOWER || previous === ACCENTED_LETTER)
              ? APOSTROPHE_AFTER_LETTER
              : punctuation(code, previous, previousCode)
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
      // A lone space before a character it does not merge with is a token of its own.
      const afterSpace = previous === SPACE && spaces === 1 ? 1 : 0
      // A symbol repeated is not in the vocabularies as a run: charge it the most it can cost.
      const repeated = code === previousCode
      const range = letterRange(code)
      if (range >= 0) {
        const [, , letterScript, cost] = LETTER_RANGES[range]!
        if (letterScript === LATIN) current = ACCENTED_LETTER
        cjkLetter = letterScript === CJK
        // In scripts written with spaces, a letter run on for NO_WORD letters, or the same letter thrice
        // in a row, is no word. CJK and Thai are written without spaces; their runs are words.
        const spaced = letterScript !== CJK && letterScript !== THAI_SCRIPT
        const noWord =
          spaced && previous === current && (run >= NO_WORD || (repeated && code === previousCode2))
        if (letterScript !== script) total += bytes * SCRIPT_START_BYTE + afterSpace
        else if (noWord) total += Math.max(cost, bytes * SCRIPT_NO_WORD_BYTE)
        else if (current === ACCENTED_LETTER && !isLetterClass(previous)) total += ACCENTED_WORD_START
        else
          total +=
            cost + afterSpace * (letterScript === HANGUL_SCRIPT ? HANGUL_WORD_START : SCRIPT_WORD_START)
        script = letterScript
      } else if (isCjkPunctuation(code)) {
        total += repeated ? bytes : CJK_PUNCTUATION
        script = CJK
      } else if (code >= 0xa0 && code <= 0xbf) {
        total += repeated ? bytes : LATIN_1_SYMBOL
      } else if (code >= 0x1f000 && code <= 0x1faff) {
        total += EMOJI
      } else if (code === 0x200d || code === 0xfe0f) {
        total += repeated ? bytes : EMOJI_JOINER
      } else if (isTypographic(code)) {
        // Runs of dashes are learnt as separators; runs of quotes, bullets or ellipses are not.
        total += repeated && code !== 0x2013 && code !== 0x2014 ? bytes : TYPOGRAPHIC_PUNCTUATION
      } else if (code <= 0xffff && COMMON_SYMBOLS.includes(String.fromCharCode(code)) && !repeated) {
        // Arrows, check marks and bullets that tool output is full of (test runners, CLIs).
        total += SYMBOL + afterSpace
        script = 0
      } else {
        // Anything else costs at most its UTF-8 length: a byte-level tokenizer never needs more.
        total += bytes + afterSpace
        script = 0
      }
    }
    if (current === LOWER || current === UPPER || current === DIGIT) {
      if (alnumLength === 0) {
        alnumBefore = totalBefore
        alnumHex = true
      } else if (current !== previous) alnumSwitches++
      alnumLength++
      if (current !== DIGIT && (code | 0x20) > 102) alnumHex = false
    } else if (alnumLength > 0) {
      total += blobDiscount(totalBefore - alnumBefore, alnumLength, alnumSwitches, alnumHex)
      alnumLength = 0
      alnumSwitches = 0
    }
    // A clause of Han or kana ends at punctuation or a line break, or at spaces when another starts
    // after them (spaces before Latin words or digits end no clause).
    if (cjkRun || cjkSpaced) {
      if (current === SPACE) cjkSpaced = true
      else if (!cjkLetter || cjkSpaced) {
        if (cjkSpaced ? cjkLetter || current === LINE_BREAK : current === LINE_BREAK || isClauseEnd(code))
          total += CJK_RUN_END
        cjkSpaced = false
      }
    }
    cjkRun = cjkLetter
    run = current === previous ? run + 1 : 1
    previousClass2 = previous
    previous = current
    previousCode2 = previousCode
    previousCode = code
  }
  if (alnumLength > 0) total += blobDiscount(total - alnumBefore, alnumLength, alnumSwitches, alnumHex)
  if (cjkRun || cjkSpaced) total += CJK_RUN_END
  // A trailing lone space is a token of its own.
  if (previous === SPACE && spaces === 1) total += 1
  return total
}

/**
 * What to add to a run of ASCII letters and digits that cost `spent` so far: a long run that keeps
 * switching between lower case, upper case and digits is a blob (base64, hex, a generated id), which
 * tokenizes at a steady rate per character that the letter-pair costs, made for words, do not follow.
 * Zero for anything else.
 */
function blobDiscount(spent: number, length: number, switches: number, hex: boolean): number {
  if (length < BLOB_MIN_LENGTH || switches * BLOB_SWITCH_SHARE < length) return 0
  return BLOB_START + length * (hex ? HEX_CHARACTER : BLOB_CHARACTER) - spent
}

/** Whether `code` after a digit is the `T` or `Z` of an ISO 8601 timestamp, by the code after it. */
function isTimestampLetter(code: number, next: number): boolean {
  const nextClass = next < 128 ? ASCII_CLASS[next]! : OTHER // NaN at the end: OTHER
  if (code === 84) return nextClass === DIGIT
  return code === 90 && nextClass !== LOWER && nextClass !== UPPER && nextClass !== DIGIT
}

/** Whether a character class is a letter of a script written with Latin letters. */
function isLetterClass(characterClass: number): boolean {
  return characterClass === LOWER || characterClass === UPPER || characterClass === ACCENTED_LETTER
}

/** The cost of an ASCII letter that starts a word, by the class of the character before it. */
function wordStart(previous: number): number {
  switch (previous) {
    case SPACE:
    case OTHER:
      return WORD_START
    case PUNCTUATION:
      return WORD_START_AFTER_PUNCTUATION
    case DIGIT:
      return WORD_START_AFTER_DIGIT
    case ACCENTED_LETTER:
      return LETTER_AFTER_ACCENTED_LETTER
    case TEXT_START:
      return WORD_START_AT_TEXT_START
    default:
      return WORD_START_AT_LINE_START
  }
}

/** The cost of an ASCII punctuation character, by the character before it. */
function punctuation(code: number, previous: number, previousCode: number): number {
  switch (previous) {
    case PUNCTUATION: {
      if (code === previousCode && RUN_SYMBOLS[code] === 1) return REPEATED_PUNCTUATION
      const known =
        (PUNCTUATION_PAIR_BITS[PUNCTUATION_INDEX[previousCode]!]! >>> PUNCTUATION_INDEX[code]!) & 1
      return known ? KNOWN_PUNCTUATION_PAIR : UNKNOWN_PUNCTUATION_PAIR
    }
    case LOWER:
    case UPPER:
      return PUNCTUATION_AFTER_LETTER
    case DIGIT:
      return PUNCTUATION_AFTER_DIGIT
    case SPACE:
      return PUNCTUATION_AFTER_SPACE
    case TEXT_START:
      return PUNCTUATION_AT_TEXT_START
    case LINE_BREAK:
    case TAB_CHARACTER:
      return PUNCTUATION_AT_LINE_START
    case ACCENTED_LETTER:
      return PUNCTUATION_AFTER_ACCENTED_LETTER
    default:
      return PUNCTUATION_AFTER_OTHER
  }
}

/** Whether a character ends a clause after Han or kana: CJK punctuation or ASCII `!,.:;?`. */
function isClauseEnd(code: number): boolean {
  return code < 128 ? CLAUSE_END_ASCII.includes(String.fromCharCode(code)) : isCjkPunctuation(code)
}
const CLAUSE_END_ASCII = '!,.:;?'
