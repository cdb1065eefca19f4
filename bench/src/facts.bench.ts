import { patternSummarizer } from '@strata-memory/core'
import { type FactScore, type Split, scoreFacts } from './fact-samples.ts'
import { oldRuleFacts } from './facts-old-rules.ts'
import { type Benchmark, type BenchRow, ratio, significant } from './harness.ts'

const BASELINE = 'pattern summarizer fact rules before issue 24'
const MEASURES = ['precision', 'recall', 'strictPrecision'] as const

/**
 * `pnpm bench facts`: the default summarizer's facts scored on the labelled set
 * (`bench/fixtures/facts`), both halves, against the old fact rules on the same threads.
 */
const benchmark: Benchmark = {
  name: 'facts',
  description: 'fact precision and recall of the pattern summarizer on 267 labelled candidates',
  async run({ progress }) {
    const summarizer = patternSummarizer()
    const rows: BenchRow[] = []
    const notes: string[] = []
    for (const split of ['tune', 'holdout', 'fresh'] as Split[]) {
      progress(`scoring the ${split} half`)
      const now = await scoreFacts(
        split,
        async (items) => (await summarizer.summarize(items, { tier: 'episodic' })).facts,
      )
      const old = await scoreFacts(split, async (items) => oldRuleFacts(items))
      for (const measure of MEASURES) {
        rows.push({
          case: `facts/${split}/${measure}`,
          params: { split, candidates: now.candidates, labelledKeep: now.labelledKeep },
          unit: 'share',
          strata: significant(now[measure]),
          baseline: significant(old[measure]),
          baselineName: BASELINE,
          ratio: significant(ratio(now[measure], old[measure]) ?? Number.NaN) || null,
        })
      }
      notes.push(line(split, 'now', now), line(split, 'old', old))
    }
    notes.push(
      'Targets on the holdout half: precision ≥ 0.8, recall ≥ 0.6. `fresh`: written after the rules, not a target.',
    )
    return { rows, notes }
  },
}

function line(split: Split, which: string, score: FactScore): string {
  return (
    `${split} (${which}): ${score.facts} facts returned, ${score.kept} of ${score.candidates} candidates kept, ` +
    `${score.keptAndKeep} of ${score.labelledKeep} labelled keep; ${score.unlabelled} unlabelled facts`
  )
}

export default benchmark
