/**
 * The estimator's costs, in tokens: what each character adds given the one before it (see
 * `estimateCost` in token-estimator.ts), calibrated against o200k_base on the estimator corpus
 * (`pnpm bench tokens`).
 */

// Every cost is a multiple of 1/64, so that sums are exact in floating point and the rounding at the
// end never depends on the order of additions.
export const HEADROOM = 4

// ASCII letters.
export const WORD_START = 1.09375
export const WORD_START_AFTER_PUNCTUATION = 0.90625
export const WORD_START_AFTER_DIGIT = 1.78125
// In a run of hex digits (commit hashes, UUIDs, trace ids) every switch between digits and the letters
// a–f starts a token, no more: a letter after a digit, and a digit after a letter once the run has
// switched before. Set by hand (issue 24) against o200k_base: JSON lines of UUIDs and timestamps came
// out at 1.13–1.20×, now 1.05–1.09×; the legacy UUID samples keep 1% above it. Checked by the tests and
// `pnpm bench tokens`.
export const HEX_LETTER_AFTER_DIGIT = 1
export const HEX_DIGIT_AFTER_LETTER = 1
// The `T` between date and time and the `Z` after the time of an ISO 8601 timestamp: one token each.
export const TIMESTAMP_LETTER = 1
export const WORD_START_AT_LINE_START = 0.40625
export const WORD_START_AT_TEXT_START = 2
export const LETTER_AFTER_ACCENTED_LETTER = 0.296875
export const LOWER_COMMON_PAIR = 0
export const LOWER_COMMON_PAIR_LONG_WORD = 0.171875
export const LONG_WORD = 8
// A run of letters this long is no word (a blob, a repeated letter): it tokenizes as badly as noise.
export const NO_WORD = 24
export const LETTER_PAIR_NO_WORD = 0.625
export const LOWER_RARE_PAIR = 0.40625
export const LOWER_AFTER_UPPER_COMMON_PAIR = 0
export const LOWER_AFTER_UPPER_RARE_PAIR = 2.84375
export const UPPER_AFTER_LOWER = 0.828125
export const UPPER_AFTER_UPPER_COMMON_PAIR = 0.015625
export const UPPER_AFTER_UPPER_RARE_PAIR = 1.3125
// Blobs: runs of at least BLOB_MIN_LENGTH letters and digits that switch class at least every
// BLOB_SWITCH_SHARE characters.
export const BLOB_MIN_LENGTH = 16
export const BLOB_SWITCH_SHARE = 4
export const BLOB_START = 1
export const BLOB_CHARACTER = 0.703125
export const HEX_CHARACTER = 0.609375
// Digits and whitespace.
export const DIGIT_GROUP = 1
// A digit right after a letter (`v2`, `sha256`, hex): the piece of letters ends there.
export const DIGIT_AFTER_LETTER = 0.65625
export const SPACE_BEFORE_DIGIT = 1
export const SECOND_SPACE = 1.046875
// The vocabularies' longest whitespace tokens: o200k_base's hold up to 128 spaces or 16 `\n`, so a
// longer run costs a token more for each such length (1,000 spaces are 9 tokens, 1,000 newlines 63).
export const LONGEST_SPACE_TOKEN = 128
export const LONGEST_NEWLINE_TOKEN = 16
export const NEWLINE = 1
export const NEWLINE_AFTER_PUNCTUATION = 0.65625
// Bare `\r` runs (old Mac line ends) have no long tokens of their own.
export const FURTHER_CARRIAGE_RETURN = 1
// Mixed `\r\n` runs: the vocabularies hold shorter runs of them than of `\n`.
export const FURTHER_MIXED_LINE_BREAK = 0.15625
export const TAB = 1
export const TAB_AFTER_SPACE = 1
export const FURTHER_TAB = 0.265625
// ASCII punctuation and control characters.
export const PUNCTUATION_AFTER_LETTER = 0.453125
export const PUNCTUATION_AFTER_DIGIT = 1.203125
export const PUNCTUATION_AFTER_SPACE = 0.9375
export const PUNCTUATION_AT_LINE_START = 1.125
export const PUNCTUATION_AT_TEXT_START = 2
export const PUNCTUATION_AFTER_OTHER = 1
export const PUNCTUATION_AFTER_ACCENTED_LETTER = 1
// An apostrophe inside a word (`don't`, `l'école`) and the letters after it, which it joins.
export const APOSTROPHE_AFTER_LETTER = 1
export const LETTER_AFTER_APOSTROPHE = 0.640625
// An accented letter that starts a word (`à`, `été`, `Über`).
export const ACCENTED_WORD_START = 1
export const REPEATED_PUNCTUATION = 0.921875
export const KNOWN_PUNCTUATION_PAIR = 0.390625
export const UNKNOWN_PUNCTUATION_PAIR = 1.09375
export const CONTROL = 2
export const CONTROL_AFTER_SPACE = 1
// Other scripts, per character after the first of a word; a new word after a space adds a start.
export const SCRIPT_WORD_START = 1
// Per UTF-8 byte of the first letter after a letter of another script (or none).
export const SCRIPT_START_BYTE = 0.671875
// Per UTF-8 byte of a letter of a script written with spaces, in a run that is no word (see NO_WORD).
export const SCRIPT_NO_WORD_BYTE = 0.625
export const HAN = 0.671875
export const KANA = 0.671875
export const CJK_PUNCTUATION = 0.75
// The end of a clause of Han or kana. Not what the break itself costs: it stands for the words that
// short clauses use. Narrative and chat (clauses of about 8 characters) spend up to 1.0 o200k token a
// Han character, formal and technical text (clauses of 10–12) 0.65, because its words merge.
export const CJK_RUN_END = 2.75
// Hangul: each syllable, and a word start after a space on top of it (a space joins the word after it).
export const HANGUL = 0.4375
export const HANGUL_WORD_START = 1.25
export const CYRILLIC = 0.5625
export const GREEK = 1.0625
export const HEBREW = 1
export const ARABIC = 0.6875
export const LATIN_1_LETTER = 1.03125
export const LATIN_EXTENDED_LETTER = 1
export const VIETNAMESE_LETTER = 0.75
export const INDIC = 1.125
export const THAI = 1
// Symbols.
export const LATIN_1_SYMBOL = 0.75
export const TYPOGRAPHIC_PUNCTUATION = 0.515625
export const SYMBOL = 0.5
export const EMOJI = 3.125
export const EMOJI_JOINER = 1.25
