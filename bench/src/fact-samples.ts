import { readFileSync } from 'node:fs'
import type { Item, JsonValue, MessagePart, SummarizedFact } from '@strata-memory/core'

/**
 * The labelled fact set (`bench/fixtures/facts`, described in its README) and how a summarizer's facts
 * are scored on it. Used by `pnpm bench facts` and by `fact-samples.test.ts`.
 */
const FIXTURES = new URL('../fixtures/facts/', import.meta.url)

/** `tune` and `holdout` halve the main set; `fresh` is the check written after the rules (`fresh/`). */
export type Split = 'tune' | 'holdout' | 'fresh'

interface SampleMessage {
  role: 'user' | 'assistant' | 'tool'
  text?: string
  calls?: { id: string; tool: string; input: JsonValue }[]
  results?: { id: string; tool: string; output: JsonValue; isError?: boolean }[]
}

/** One thread of the set, as written in `threads.jsonl`. */
export interface SampleThread {
  thread: string
  split: Split
  topic: string
  messages: SampleMessage[]
}

/** One labelled candidate, as written in `candidates.jsonl`. */
export interface FactCandidate {
  id: string
  thread: string
  split: Split
  from: string
  fact: string
  match: string[]
  label: 'keep' | 'drop'
  reason: string
}

const readLines = <T>(name: string): T[] =>
  readFileSync(new URL(name, FIXTURES), 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as T)

/** The threads and candidates of the main set (`tune` and `holdout`), or of the fresh check. */
export function loadFactSamples({ fresh = false }: { fresh?: boolean } = {}): {
  threads: SampleThread[]
  candidates: FactCandidate[]
} {
  const folder = fresh ? 'fresh/' : ''
  return { threads: readLines(`${folder}threads.jsonl`), candidates: readLines(`${folder}candidates.jsonl`) }
}

/** A thread's messages as stored items: one item a message, a user message starting a turn. */
export function itemsOf(thread: SampleThread): Item[] {
  let turn = 0
  return thread.messages.map((message, index): Item => {
    if (message.role === 'user') turn++
    const content: MessagePart[] = []
    if (message.text !== undefined) content.push({ type: 'text', text: message.text })
    for (const call of message.calls ?? [])
      content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.tool, input: call.input })
    for (const result of message.results ?? [])
      content.push({
        type: 'tool-result',
        toolCallId: result.id,
        toolName: result.tool,
        output: result.output,
        ...(result.isError === true ? { isError: true } : {}),
      })
    return {
      id: `${thread.thread}-${index + 1}`,
      seq: index + 1,
      ts: 1_764_000_000_000 + index * 1_000,
      level: 'global',
      turnId: `turn_${String(Math.max(turn, 1)).padStart(4, '0')}`,
      type: 'message',
      role: message.role,
      content,
    }
  })
}

/** The README's normalisation: NFKC, lower case, whitespace collapsed, trimmed. */
export const normalizeForMatch = (text: string) =>
  text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim()

/** What the summarizer under test does with one thread's items: the facts it returns. */
export type FactsOf = (items: readonly Item[]) => Promise<readonly SummarizedFact[]>

/** Precision and recall of one half, with what lies behind them. */
export interface FactScore {
  split: Split
  candidates: number
  labelledKeep: number
  kept: number
  keptAndKeep: number
  /** Facts returned that match no candidate of their thread. */
  unlabelled: number
  facts: number
  precision: number
  recall: number
  /** Precision counting every unlabelled fact as a wrong one. */
  strictPrecision: number
  /** The candidates scored wrongly (kept drops, missed keeps) and the unlabelled facts, for reading. */
  misses: { keptDrops: FactCandidate[]; missedKeeps: FactCandidate[]; unlabelled: string[] }
}

/** A candidate is kept when one returned fact, normalised, contains all its `match` strings. */
export function isKept(candidate: FactCandidate, facts: readonly string[]): boolean {
  const terms = candidate.match.map(normalizeForMatch)
  return facts.some((fact) => terms.every((term) => fact.includes(term)))
}

/** Scores a summarizer on one half of the set. */
export async function scoreFacts(split: Split, factsOf: FactsOf): Promise<FactScore> {
  const { threads, candidates } = loadFactSamples({ fresh: split === 'fresh' })
  const score: FactScore = {
    split,
    candidates: 0,
    labelledKeep: 0,
    kept: 0,
    keptAndKeep: 0,
    unlabelled: 0,
    facts: 0,
    precision: 0,
    recall: 0,
    strictPrecision: 0,
    misses: { keptDrops: [], missedKeeps: [], unlabelled: [] },
  }
  for (const thread of threads.filter((each) => each.split === split)) {
    const returned = (await factsOf(itemsOf(thread))).map((fact) => fact.text)
    const facts = returned.map(normalizeForMatch)
    const ofThread = candidates.filter((candidate) => candidate.thread === thread.thread)
    score.facts += facts.length
    for (const candidate of ofThread) {
      score.candidates++
      const kept = isKept(candidate, facts)
      if (candidate.label === 'keep') score.labelledKeep++
      if (kept) score.kept++
      if (kept && candidate.label === 'keep') score.keptAndKeep++
      if (kept && candidate.label === 'drop') score.misses.keptDrops.push(candidate)
      if (!kept && candidate.label === 'keep') score.misses.missedKeeps.push(candidate)
    }
    for (const [index, fact] of facts.entries()) {
      if (ofThread.some((candidate) => isKept(candidate, [fact]))) continue
      score.unlabelled++
      score.misses.unlabelled.push(`${thread.thread}: ${returned[index]}`)
    }
  }
  score.precision = score.kept === 0 ? 0 : score.keptAndKeep / score.kept
  score.recall = score.labelledKeep === 0 ? 0 : score.keptAndKeep / score.labelledKeep
  const judged = score.kept + score.unlabelled
  score.strictPrecision = judged === 0 ? 0 : score.keptAndKeep / judged
  return score
}
