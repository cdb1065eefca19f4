import { patternSummarizer } from '@strata-memory/core'
import { describe, expect, it } from 'vitest'
import { isKept, itemsOf, loadFactSamples, normalizeForMatch, scoreFacts } from './fact-samples.ts'
import { oldRuleFacts } from './facts-old-rules.ts'

const summarizer = patternSummarizer()
const factsOf = async (items: Parameters<typeof summarizer.summarize>[0]) =>
  (await summarizer.summarize(items, { tier: 'episodic' })).facts

describe('the labelled fact set', () => {
  it('holds at least 200 candidates, both labels and both halves, and every match string is in its thread', () => {
    const { threads, candidates } = loadFactSamples()
    expect(candidates.length).toBeGreaterThanOrEqual(200)
    const byThread = new Map(threads.map((thread) => [thread.thread, thread]))
    const holdout = candidates.filter((candidate) => candidate.split === 'holdout')
    // Half held out, within a thread's worth.
    expect(Math.abs(holdout.length * 2 - candidates.length)).toBeLessThanOrEqual(12)
    for (const candidate of candidates) {
      const thread = byThread.get(candidate.thread)
      expect(thread, candidate.id).toBeDefined()
      // A candidate's split is its thread's: tuning on a thread never sees a held-out candidate.
      expect(candidate.split, candidate.id).toBe(thread!.split)
      expect(['keep', 'drop']).toContain(candidate.label)
      expect(candidate.reason.length, candidate.id).toBeGreaterThan(0)
      const text = normalizeForMatch(JSON.stringify(thread!.messages, null, 0).replace(/\\"/g, '"'))
      for (const term of candidate.match)
        expect(text, `${candidate.id}: ${term}`).toContain(normalizeForMatch(term))
    }
    for (const split of ['tune', 'holdout'])
      for (const label of ['keep', 'drop'])
        expect(candidates.some((candidate) => candidate.split === split && candidate.label === label)).toBe(
          true,
        )
  })

  it('counts a candidate kept only when one fact holds every one of its match strings', () => {
    const candidate = { ...loadFactSamples().candidates[0]!, match: ['PO-7003', '1,240 EUR'] }
    expect(isKept(candidate, ['invoice po-7003 total: 1,240 eur'])).toBe(true)
    expect(isKept(candidate, ['invoice po-7003', 'total: 1,240 eur'])).toBe(false)
  })
})

describe('the default summarizer on the labelled fact set', () => {
  it('reaches precision ≥ 0.8 and recall ≥ 0.6 on the held-out half', async () => {
    const score = await scoreFacts('holdout', factsOf)
    expect(score.labelledKeep).toBeGreaterThan(50)
    expect(score.precision).toBeGreaterThanOrEqual(0.8)
    expect(score.recall).toBeGreaterThanOrEqual(0.6)
    // Facts the set does not judge count as wrong here: the rules cannot gain by saying more.
    expect(score.strictPrecision).toBeGreaterThanOrEqual(0.8)
  })

  it('meets the same targets on the fresh check written after the rules', async () => {
    const score = await scoreFacts('fresh', factsOf)
    expect(score.precision).toBeGreaterThanOrEqual(0.8)
    expect(score.recall).toBeGreaterThanOrEqual(0.6)
  })

  // The old rules' figures on the same half: the set tells the noisy facts of issue 24 from good ones.
  it('scores the fact rules before issue 24 below both targets on the held-out half', async () => {
    const score = await scoreFacts('holdout', async (items) => oldRuleFacts(items))
    expect(score.precision).toBeLessThan(0.8)
    expect(score.recall).toBeLessThan(0.6)
  })

  it('returns at most ten facts a thread, each once', async () => {
    for (const thread of [...loadFactSamples().threads, ...loadFactSamples({ fresh: true }).threads]) {
      const facts = (await factsOf(itemsOf(thread))).map((fact) => normalizeForMatch(fact.text))
      expect(facts.length).toBeLessThanOrEqual(10)
      expect(new Set(facts).size).toBe(facts.length)
    }
  })
})
