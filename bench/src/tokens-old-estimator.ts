/**
 * The default estimator as it was before issue 24 (calibrated to cover both `o200k_base` and
 * `cl100k_base`), copied verbatim but for its options, as the baseline of `tokens.bench.ts`. Not used
 * anywhere else.
 */
export function oldTokenEstimator(): { count(text: string): number } {
  return { count: (text) => (text.length === 0 ? 0 : Math.ceil(estimateCost(text) + HEADROOM)) }
}

// Every cost is a multiple of 1/64, so that sums are exact in floating point and the rounding at the
// end never depends on the order of additions.
const HEADROOM = 1

// ASCII letters.
const WORD_START = 1
const WORD_START_AFTER_PUNCTUATION = 1.1875
const WORD_START_AFTER_DIGIT = 1.5
const WORD_START_AT_LINE_START = 1
const WORD_START_AT_TEXT_START = 2
const LETTER_AFTER_ACCENTED_LETTER = 0.8125
const LOWER_COMMON_PAIR = 0.09375
const LOWER_COMMON_PAIR_LONG_WORD = 0.1875
const LONG_WORD = 8
// A run of letters this long is no word (a blob, a repeated letter): it tokenizes as badly as noise.
const NO_WORD = 24
const LETTER_PAIR_NO_WORD = 0.625
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
const FURTHER_SPACE = 0.015625
const NEWLINE = 1
const NEWLINE_AFTER_PUNCTUATION = 0.25
const FURTHER_NEWLINE = 0.125
// Bare `\r` runs (old Mac line ends) have no long tokens of their own.
const FURTHER_CARRIAGE_RETURN = 1
// Mixed `\r\n` runs: the vocabularies hold shorter runs of them than of `\n`.
const FURTHER_MIXED_LINE_BREAK = 0.15625
const TAB = 0.5
const TAB_AFTER_SPACE = 1
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
// Per UTF-8 byte of a letter of a script written with spaces, in a run that is no word (see NO_WORD).
const SCRIPT_NO_WORD_BYTE = 0.625
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

// Character classes of the state machine.
const TEXT_START = 0
const LOWER = 1
const UPPER = 2
const DIGIT = 3
const SPACE = 4
const LINE_BREAK = 5
const TAB_CHARACTER = 6
const PUNCTUATION = 7
const CONTROL_CHARACTER = 8
const ACCENTED_LETTER = 9
const OTHER = 10

const ASCII_CLASS = new Uint8Array(128)
for (let code = 0; code < 128; code++) {
  if (code >= 97 && code <= 122) ASCII_CLASS[code] = LOWER
  else if (code >= 65 && code <= 90) ASCII_CLASS[code] = UPPER
  else if (code >= 48 && code <= 57) ASCII_CLASS[code] = DIGIT
  else if (code === 32) ASCII_CLASS[code] = SPACE
  else if (code === 10 || code === 13) ASCII_CLASS[code] = LINE_BREAK
  else if (code === 9) ASCII_CLASS[code] = TAB_CHARACTER
  else if (code < 32 || code === 127) ASCII_CLASS[code] = CONTROL_CHARACTER
  else ASCII_CLASS[code] = PUNCTUATION
}

/**
 * For each letter a–z, the letters that commonly follow it: the 300 most frequent of the 676 pairs
 * in English technical documentation (code identifiers included), licences and tutorials. Random
 * letters (generated ids, base64) hit a rare pair about every other character; English words rarely do.
 */
const COMMON_LETTER_PAIRS = [
  'bcdfgiklmnprstuvwy',
  'aeijlorsuy',
  'acehiklmoprstu',
  'adeilosu',
  'abcdefgijlmnopqrstvwxy',
  'aefilorstuy',
  'aehilnorstu',
  'aeimoprtu',
  'abcdefgklmnoprstvxz',
  'aesu',
  'aeis',
  'abdegilopstuy',
  'abdeijlmopsu',
  'acdefgiklmnostuvy',
  'abcdefgiklmnoprstuvw',
  'aehiloprstuy',
  'u',
  'acdefgiklmnoprstuvwy',
  'acefhiklmoprstuy',
  'acdefhiloprstuwy',
  'abcdefgilmnprst',
  'aeimo',
  'aehinors',
  'aceiptx',
  'anoprst',
  'e',
]

/** Bit `b` of entry `a` is set when letter `b` commonly follows letter `a` (both 0–25). */
const LETTER_PAIR_BITS = new Uint32Array(26)
COMMON_LETTER_PAIRS.forEach((nexts, first) => {
  for (const next of nexts) LETTER_PAIR_BITS[first]! |= 1 << (next.charCodeAt(0) - 97)
})

/**
 * For each ASCII punctuation character, the ones that form a single token with it in both
 * vocabularies (`");`, `=>`, `},`). Code and JSON are full of them; random symbols less so.
 */
const KNOWN_PUNCTUATION_PAIRS: Record<string, string> = {
  '!': '!"\'()*,./:=?[\\]',
  '"': '"#$%&\'()*+,-./:;<>?[\\]_`{|}',
  '#': '!"#$+,./:[{',
  $: '$(,./:\\_{',
  '%': '!"%\'(),-.;=@\\^',
  '&': '#&(),_',
  "'": '"#$%\'()*+,-./:;<=>?[\\]^_{}',
  '(': '!"#$%&\'()*+-./:;<?@[\\^_`{|~',
  ')': '!"#$%&\'()*+,-./:;<=>?[\\]^_`{|}',
  '*': '"$&()*,-./:=>@[\\_',
  '+': '"#$\'()+,-./:=[\\]',
  ',': '!"#$%&\'()*+,-./:<@[\\_{',
  '-': '"$%&\'()*,-./=>[\\_{',
  '.': '!"#$%&\'()*+,-./:;<=?@[\\]^_`{|',
  '/': '"#$%&\'()*+,-./:<=>?@[\\]^_{~',
  ':': '"#$%&\'()*+,-./:<=?@[\\]^_`{',
  ';': '"$%&\'(),-./;<\\}',
  '<': "!$&'(-/<=>?[_{",
  '=': '!"#$%&\'(*-./:<=>?@[\\_`{}',
  '>': '"#$%&\'()*,-./:;<=>?@[\\]`{|}',
  '?': '!"$\'(),-.:<>?[\\',
  '@': '"$(@[\\',
  '[': '"#$%\'(*,-/:@[\\]^_`{',
  '\\': '"$\'(-./:<[\\',
  ']': '"%&\'()*+,-./:;<=>?[\\]^{|}',
  '^': '(-.[\\^{',
  _: '"$%\'()*,-./:;<=[\\]^_{|',
  '`': '),.:;\\]`}',
  '{': '"$%\'-/:@\\{|}',
  '|': '"(-\\|',
  '}': '"$%&\'(),-./:;<=>?@[\\]_`{|}',
  '~': ',-/=~',
}

/** The 32 ASCII punctuation characters, numbered 0–31 in code order; -1 for anything else. */
const PUNCTUATION_INDEX = new Int8Array(128).fill(-1)
Object.keys(KNOWN_PUNCTUATION_PAIRS)
  .map((symbol) => symbol.charCodeAt(0))
  .sort((a, b) => a - b)
  .forEach((code, index) => {
    PUNCTUATION_INDEX[code] = index
  })

/** Bit `PUNCTUATION_INDEX[b]` of entry `PUNCTUATION_INDEX[a]` is set when `a` then `b` is a known pair. */
const PUNCTUATION_PAIR_BITS = new Uint32Array(32)
for (const [first, nexts] of Object.entries(KNOWN_PUNCTUATION_PAIRS)) {
  const row = PUNCTUATION_INDEX[first.charCodeAt(0)]!
  for (const next of nexts) PUNCTUATION_PAIR_BITS[row]! |= 1 << PUNCTUATION_INDEX[next.charCodeAt(0)]!
}

/** Symbols that vocabularies learn in long runs (`----`, `====`, `////`): each repeat costs little. */
const RUN_SYMBOLS = new Uint8Array(128)
for (const symbol of '-=*#_~./+') RUN_SYMBOLS[symbol.charCodeAt(0)] = 1

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
  [0x3041, 0x30fa, CJK, KANA], // hiragana and katakana
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

/** 、 。 〈〉《》「」『』【】 and the fullwidth ！（），：；？ that the vocabularies know. */
function isCjkPunctuation(code: number): boolean {
  if (code === 0x3001 || code === 0x3002 || (code >= 0x3008 && code <= 0x3011)) return true
  return (
    code >= 0xff01 &&
    code <= 0xff1f &&
    code !== 0xff02 &&
    code !== 0xff03 &&
    code !== 0xff04 &&
    code !== 0xff07
  )
}

/** Curly quotes, dashes, bullet and ellipsis: common in prose, usually merged with their neighbours. */
function isTypographic(code: number): boolean {
  return (
    code === 0x2013 ||
    code === 0x2014 ||
    code === 0x2018 ||
    code === 0x2019 ||
    code === 0x201c ||
    code === 0x201d ||
    code === 0x2022 ||
    code === 0x2026
  )
}

/** The cost of `text` before headroom and multiplier. */
function estimateCost(text: string): number {
  let total = 0
  let previous = TEXT_START // class of the previous character
  let previousCode = -1
  let previousCode2 = -1 // the code before that
  let run = 0 // characters of the previous class in a row
  let spaces = 0 // length of the current run of spaces
  let script = 0 // script of the last letter
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
            if (!common) total += LOWER_RARE_PAIR
            else if (run < LONG_WORD) total += LOWER_COMMON_PAIR
            else total += run < NO_WORD ? LOWER_COMMON_PAIR_LONG_WORD : LETTER_PAIR_NO_WORD
          } else if (previous === UPPER) {
            const common = (LETTER_PAIR_BITS[previousCode - 65]! >>> (code - 97)) & 1
            total += common ? LOWER_AFTER_UPPER_COMMON_PAIR : LOWER_AFTER_UPPER_RARE_PAIR
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
            total += previous === LOWER ? UPPER_AFTER_LOWER : wordStart(previous)
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
          if (previous !== LINE_BREAK) total += previous === PUNCTUATION ? NEWLINE_AFTER_PUNCTUATION : NEWLINE
          else if (code !== previousCode) total += FURTHER_MIXED_LINE_BREAK
          else total += code === 10 ? FURTHER_NEWLINE : FURTHER_CARRIAGE_RETURN
          break
        case TAB_CHARACTER:
          total += previous === TAB_CHARACTER ? FURTHER_TAB : previous === SPACE ? TAB_AFTER_SPACE : TAB
          break
        case CONTROL_CHARACTER:
          total += previous === SPACE ? CONTROL + CONTROL_AFTER_SPACE : CONTROL
          break
        default:
          total += punctuation(code, previous, previousCode)
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
        // In scripts written with spaces, a letter run on for NO_WORD letters, or the same letter thrice
        // in a row, is no word. CJK and Thai are written without spaces; their runs are words.
        const spaced = letterScript !== CJK && letterScript !== THAI_SCRIPT
        const noWord =
          spaced && previous === current && (run >= NO_WORD || (repeated && code === previousCode2))
        if (letterScript !== script) total += bytes + afterSpace
        else if (noWord) total += Math.max(cost, bytes * SCRIPT_NO_WORD_BYTE)
        else total += cost + afterSpace * SCRIPT_WORD_START
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
      } else {
        // Anything else costs at most its UTF-8 length: a byte-level tokenizer never needs more.
        total += bytes + afterSpace
        script = 0
      }
    }
    run = current === previous ? run + 1 : 1
    previous = current
    previousCode2 = previousCode
    previousCode = code
  }
  // A trailing lone space is a token of its own.
  if (previous === SPACE && spaces === 1) total += 1
  return total
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
    default:
      return PUNCTUATION_AFTER_OTHER
  }
}
