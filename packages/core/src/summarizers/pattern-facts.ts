import { normalizeFactText } from '../items/facts'
import { answerFact, userFact } from './fact-rules'
import type { SummarizedFact } from './summarizer'
import { READ_CHARS } from './text-gist'

/** A fact found in the items, with the sentence it came from and when (`order`), so the newest can be chosen. */
interface FactCandidate {
  fact: SummarizedFact
  source: 'user' | 'answer'
  order: number
}

// How facts were worded before: `User said: "I prefer tea."`. Threads keep such facts as they are; a
// sentence one of them quotes is not extracted again in the new wording.
const OLD_QUOTE = /^user said: "(.*)"$/s

/** The sentences read come from `sentences`, their white space collapsed already (and no offer). */
const COLLAPSED = { collapsed: true }

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
  /** The newest candidate of each fact (by normalised text), per source, with when it was last found. */
  readonly #newest = { user: new Map<string, FactCandidate>(), answer: new Map<string, FactCandidate>() }
  /** What the thread knows already: facts in this wording, and sentences an old-wording fact quotes. */
  readonly #known = new Set<string>()
  readonly #maxFacts: number
  #order = 0
  /**
   * The candidates the latest answer gave, while they are the latest, with the candidate each one
   * replaced: a user's choice takes them back.
   */
  #latestAnswer: { key: string; replaced: FactCandidate | undefined }[] | undefined
  /** The latest answer's words, lower case: what a short reply may choose from. */
  #offer: string | undefined

  /**
   * `maxFacts`: how many of each source {@link choose} may return; `knownFacts`: the facts the thread
   * holds, never found again. Only the newest `maxFacts` candidates of each source are kept, so the
   * memory stays bounded however long the items.
   */
  constructor(maxFacts: number, knownFacts: readonly string[] = []) {
    this.#maxFacts = maxFacts
    for (const fact of knownFacts) {
      const key = normalizeFactText(fact)
      this.#known.add(key)
      const quoted = OLD_QUOTE.exec(key)
      if (quoted) this.#known.add(normalizeFactText(quoted[1]!))
    }
  }

  /**
   * The sentences of one user message. A short first sentence naming what the latest answer offered
   * is the user's choice ("SK801.").
   */
  userMessage(sentences: readonly string[]) {
    for (let index = 0; index < sentences.length; index++) {
      const sentence = sentences[index]!
      const worded = userFact(
        sentence,
        index === 0 && this.#offer !== undefined ? { offer: this.#offer, collapsed: true } : COLLAPSED,
      )
      if (worded === undefined) continue
      // The answer offered options and the user chose one: the choice is the fact, the offer is not.
      if (worded.kind === 'choice' && this.#latestAnswer !== undefined) this.#takeBackLatestAnswer()
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
    this.#latestAnswer = []
    this.#offer = text.slice(0, READ_CHARS).toLowerCase()
    let left = FACTS_PER_ANSWER
    for (const sentence of sentences) {
      if (left === 0) break
      const worded = answerFact(sentence, COLLAPSED)
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
  choose(maxFacts = this.#maxFacts): SummarizedFact[] {
    const picked: FactCandidate[] = []
    for (const source of ['user', 'answer'] as const) {
      const other = this.#newest[source === 'user' ? 'answer' : 'user']
      // A fact both sources gave counts once, as the source that gave it last.
      const ofSource = [...this.#newest[source].entries()]
        .filter(([key, candidate]) => (other.get(key)?.order ?? -1) < candidate.order)
        .map(([, candidate]) => candidate)
        .sort((a, b) => a.order - b.order)
      picked.push(...ofSource.slice(Math.max(0, ofSource.length - (maxFacts - picked.length))))
    }
    return picked.sort((a, b) => a.order - b.order).map((candidate) => candidate.fact)
  }

  #takeBackLatestAnswer() {
    for (const { key, replaced } of this.#latestAnswer!.reverse()) {
      if (replaced === undefined) this.#newest.answer.delete(key)
      else this.#newest.answer.set(key, replaced)
    }
  }

  #push(source: FactCandidate['source'], sentence: string, fact: SummarizedFact) {
    const key = normalizeFactText(fact.text)
    // The sentence it was worded from, normalised: a fact stored in the old wording is known by it.
    if (this.#known.size > 0 && (this.#known.has(key) || this.#known.has(normalizeFactText(sentence)))) return
    const candidates = this.#newest[source]
    if (source === 'answer') this.#latestAnswer?.push({ key, replaced: candidates.get(key) })
    candidates.set(key, { fact, source, order: this.#order++ })
    // Bounded: only the newest `maxFacts` of a source can be chosen; the rest go in bulk.
    if (candidates.size > 2 * this.#maxFacts + 16) this.#keepNewest(candidates)
  }

  #keepNewest(candidates: Map<string, FactCandidate>) {
    const latest = new Set(this.#latestAnswer?.map((entry) => entry.key))
    const ranked = [...candidates].sort((a, b) => b[1].order - a[1].order)
    for (const [key] of ranked.slice(this.#maxFacts + 8)) if (!latest.has(key)) candidates.delete(key)
  }
}
