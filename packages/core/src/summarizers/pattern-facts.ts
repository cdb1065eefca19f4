import { normalizeFactText } from '../items/facts'
import { answerFact, userFact } from './fact-rules'
import type { SummarizedFact } from './summarizer'
import { READ_CHARS } from './text-gist'

/** A fact found in the items, with the sentence it came from and when (`order`), so the newest can be chosen. */
interface FactCandidate {
  fact: SummarizedFact
  source: 'user' | 'answer'
  /** The sentence it was worded from, normalised: a fact stored in the old wording is known by it. */
  sentence: string
  order: number
}

// How facts were worded before: `User said: "I prefer tea."`. Threads keep such facts as they are; a
// sentence one of them quotes is not extracted again in the new wording.
const OLD_QUOTE = /^user said: "(.*)"$/s

/** How many facts one answer gives at most: an answer reciting a list gives its first lines. */
const FACTS_PER_ANSWER = 3

/**
 * The facts the pattern summarizer finds, worded as a person keeps them: what the user said about
 * themselves and the work (`User prefers metric units`, `User's name is Ana Lima`, `Approval limit is
 * 5,000 EUR`, `User chose: SK801`) and the values the answers gave them (`Invoice PO-7003 from Cedar
 * Ltd totals 1,240.00 EUR`). Tool results give no facts of their own: a value of a result counts once
 * an answer tells it to the user. Error codes, generated ids, memory and scope tools and boilerplate
 * give none (see `fact-rules.ts`).
 */
export class FactCandidates {
  readonly #candidates: FactCandidate[] = []
  /** Where the facts of the latest answer start among the candidates, while they are the latest. */
  #latestAnswer: number | undefined
  /** The latest answer's words, lower case: what a short reply may choose from. */
  #offer: string | undefined

  /**
   * The sentences of one user message. A short first sentence naming what the latest answer offered
   * is the user's choice ("SK801.").
   */
  userMessage(sentences: readonly string[]) {
    for (const [index, sentence] of sentences.entries()) {
      const worded = userFact(
        sentence,
        index === 0 && this.#offer !== undefined ? { offer: this.#offer } : {},
      )
      if (worded === undefined) continue
      // The answer offered options and the user chose one: the choice is the fact, the offer is not.
      if (worded.kind === 'choice' && this.#latestAnswer !== undefined)
        this.#candidates.length = this.#latestAnswer
      this.#latestAnswer = undefined
      this.#offer = undefined
      const tags = ['name', 'preference', 'decision'].includes(worded.kind) ? ['user', worded.kind] : ['user']
      this.#push('user', sentence, { text: worded.text, tags, confidence: 0.9 })
    }
  }

  /**
   * One answer (its `text`, split into `sentences`): the sentences that tell the user a value or an
   * identifier, the first few.
   */
  answer(text: string, sentences: readonly string[]) {
    this.#latestAnswer = this.#candidates.length
    this.#offer = text.slice(0, READ_CHARS).toLowerCase()
    let left = FACTS_PER_ANSWER
    for (const sentence of sentences) {
      if (left === 0) break
      const worded = answerFact(sentence)
      if (worded === undefined) continue
      left--
      this.#push('answer', sentence, { text: worded.text, tags: ['answer'], confidence: 0.7 })
    }
  }

  /**
   * At most `maxFacts` facts, each once (by {@link normalizeFactText}) and none the thread already
   * knows (in this wording or, for the user's words, quoted in the old one): the newest user facts
   * first, then the newest answer facts, returned oldest first.
   */
  choose(maxFacts: number, knownFacts: readonly string[]): SummarizedFact[] {
    const known = new Set<string>()
    for (const fact of knownFacts) {
      const key = normalizeFactText(fact)
      known.add(key)
      const quoted = OLD_QUOTE.exec(key)
      if (quoted) known.add(normalizeFactText(quoted[1]!))
    }
    const newest = new Map<string, FactCandidate>()
    for (const candidate of this.#candidates) {
      const key = normalizeFactText(candidate.fact.text)
      if (known.has(key) || known.has(candidate.sentence)) continue
      newest.delete(key)
      newest.set(key, candidate)
    }
    const unique = [...newest.values()]
    const picked: FactCandidate[] = []
    for (const source of ['user', 'answer'] as const) {
      const ofSource = unique.filter((candidate) => candidate.source === source)
      picked.push(...ofSource.slice(Math.max(0, ofSource.length - (maxFacts - picked.length))))
    }
    return picked.sort((a, b) => a.order - b.order).map((candidate) => candidate.fact)
  }

  #push(source: FactCandidate['source'], sentence: string, fact: SummarizedFact) {
    this.#candidates.push({
      fact,
      source,
      sentence: normalizeFactText(sentence),
      order: this.#candidates.length,
    })
  }
}
