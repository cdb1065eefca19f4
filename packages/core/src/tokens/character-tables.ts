/**
 * The character data of the default estimator: the classes of its state machine, and which letter and
 * punctuation pairs and which symbols the tokenizers' vocabularies know. Internal to `tokens/`.
 */

// Character classes of the state machine.
export const TEXT_START = 0
export const LOWER = 1
export const UPPER = 2
export const DIGIT = 3
export const SPACE = 4
export const LINE_BREAK = 5
export const TAB_CHARACTER = 6
export const PUNCTUATION = 7
export const CONTROL_CHARACTER = 8
export const ACCENTED_LETTER = 9
export const OTHER = 10

export const ASCII_CLASS = new Uint8Array(128)
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
export const LETTER_PAIR_BITS = new Uint32Array(26)
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
export const PUNCTUATION_INDEX = new Int8Array(128).fill(-1)
Object.keys(KNOWN_PUNCTUATION_PAIRS)
  .map((symbol) => symbol.charCodeAt(0))
  .sort((a, b) => a - b)
  .forEach((code, index) => {
    PUNCTUATION_INDEX[code] = index
  })

/** Bit `PUNCTUATION_INDEX[b]` of entry `PUNCTUATION_INDEX[a]` is set when `a` then `b` is a known pair. */
export const PUNCTUATION_PAIR_BITS = new Uint32Array(32)
for (const [first, nexts] of Object.entries(KNOWN_PUNCTUATION_PAIRS)) {
  const row = PUNCTUATION_INDEX[first.charCodeAt(0)]!
  for (const next of nexts) PUNCTUATION_PAIR_BITS[row]! |= 1 << PUNCTUATION_INDEX[next.charCodeAt(0)]!
}

/** Symbols that vocabularies learn in long runs (`----`, `====`, `////`): each repeat costs little. */
export const RUN_SYMBOLS = new Uint8Array(128)
for (const symbol of '-=*#_~./+') RUN_SYMBOLS[symbol.charCodeAt(0)] = 1

/** Symbols that `o200k_base` learnt as one token each. */
export const COMMON_SYMBOLS = '←↑→↓⇒✓✔★☆●○■□▶►◆'

/** 、 。 〈〉《》「」『』【】 and the fullwidth ！（），：；？ that the vocabularies know. */
export function isCjkPunctuation(code: number): boolean {
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
export function isTypographic(code: number): boolean {
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
