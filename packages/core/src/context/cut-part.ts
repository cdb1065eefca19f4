import type { MessagePart } from '../items'
import type { TokenCounter } from '../tokens'

/** Where the whole of a context's part is kept: the id `memory_retrieve` answers with it in full. */
export interface PartSource {
  /** The id `memory_retrieve` returns the whole original with. */
  id: string
  /**
   * `content`: the part shows the original itself (counts in the note are the original's);
   * `citation`: the part is a citation of it (the note gives the original's length, `chars`, when known);
   * `retrieved`: the part is a `memory_retrieve` result, and `id` names what it read (`chars`: the
   * original's length, when the result held it whole).
   */
  shows: 'content' | 'citation' | 'retrieved'
  /** The original's length in characters, when the part does not show it whole. */
  chars?: number
}

/** What {@link cutPart} reads besides the part. */
export interface CutOptions {
  counter: TokenCounter
  /** Where a part's whole content is kept; the default is the part itself, under `itemId`. */
  source?: (part: MessagePart) => PartSource | undefined
}

/** Each part's text and its tokens, by the counter that counted them: a cut is searched for by size. */
const texts = new WeakMap<MessagePart, { text: string; counter: TokenCounter; tokens: number }>()

function measured(part: MessagePart, counter: TokenCounter) {
  let known = texts.get(part)
  if (known === undefined || known.counter !== counter) {
    const text = textOf(part)
    known = { text, counter, tokens: counter.count(text) }
    texts.set(part, known)
  }
  return known
}

function textOf(part: MessagePart): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text
    case 'tool-result':
      return typeof part.output === 'string' ? part.output : JSON.stringify(part.output)
    default:
      return ''
  }
}

/** The note a cut part ends with: what was left out and the id that returns the whole original. */
function cutNote(source: PartSource, shown: number, length: number): string {
  const retrieve = `memory_retrieve {"id":"${source.id}"}`
  switch (source.shows) {
    case 'content':
      return `[truncated: ${length - shown} of ${length} characters left out; ${retrieve} returns the whole content]`
    case 'citation':
      return `[truncated citation; ${retrieve} returns the whole content${source.chars === undefined ? '' : ` (${source.chars} characters)`}]`
    case 'retrieved':
      // The result's own length is not the original's (a retrieve wraps and escapes it): only the
      // original's is given, when the result held it whole.
      return `[truncated: the rest of this result is left out; ${retrieve} returns the whole original${source.chars === undefined ? '' : ` (${source.chars} characters)`}]`
  }
}

/**
 * The last two cuts of each part, by size, newest last: contexts of an unchanged thread cut the same
 * parts alike (a part's smallest cut and the cut that fills a budget are both kept).
 */
const cuts = new WeakMap<MessagePart, { maxTokens: number; cut: MessagePart }[]>()
const KEPT_CUTS = 2

/**
 * The part with its text, reasoning or tool output cut to about `maxTokens`, ending with a note that
 * names the id `memory_retrieve` answers with the whole original (see {@link CutOptions.source}; else
 * `itemId`) and the original's length; the part itself when it fits. The same part cut to one of
 * the last two sizes it was cut to is the same object.
 */
export function cutPart(
  part: MessagePart,
  maxTokens: number,
  itemId: string,
  options: CutOptions,
): MessagePart {
  const known = cuts.get(part)
  const hit = known?.find((entry) => entry.maxTokens === maxTokens)
  if (hit !== undefined) return hit.cut
  const { counter } = options
  const { text, tokens } = measured(part, counter)
  if (tokens <= maxTokens) return part
  // Cut proportionally, then shrink until it fits: the counter is not linear in length.
  let length = Math.floor((text.length * maxTokens) / tokens)
  while (length > 0 && counter.count(text.slice(0, length)) > maxTokens) length = Math.floor(length * 0.9)
  // A cut never ends between the two halves of a surrogate pair.
  if (length > 0 && /[\uD800-\uDBFF]/.test(text[length - 1]!)) length--
  const source = options.source?.(part) ?? { id: itemId, shows: 'content' }
  const shown = `${text.slice(0, length)}\n${cutNote(source, length, text.length)}`
  const cut: MessagePart =
    part.type === 'tool-result' ? { ...part, output: shown } : ({ ...part, text: shown } as MessagePart)
  cuts.set(part, [...(known ?? []).slice(1 - KEPT_CUTS), { maxTokens, cut }])
  return cut
}
