import type { PlantedQuestion, ResourceConversations } from './resource-conversations.ts'

/** Where a ranking placed a hit: the thread and seq of the item. */
export interface RankedHit {
  threadId: string
  seq: number
}

/**
 * recall@k: the share of questions whose answer (its thread and seq) is among the first `k` hits of
 * its ranking. `rankings[i]` is the ranking of `questions[i]`.
 */
export function recallAtK(
  questions: readonly PlantedQuestion[],
  rankings: readonly (readonly RankedHit[])[],
  k: number,
): number {
  if (rankings.length !== questions.length)
    throw new RangeError(`recallAtK(): ${rankings.length} rankings for ${questions.length} questions`)
  if (questions.length === 0) return 0
  let found = 0
  for (const [index, question] of questions.entries()) {
    const top = rankings[index]!.slice(0, k)
    if (top.some((hit) => hit.threadId === question.threadId && hit.seq === question.seq)) found++
  }
  return found / questions.length
}

/** The distinct lower-case words of a text (letters and digits, any script). */
export function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
}

/**
 * The brute-force baseline: every message of every thread scored by the count of distinct words it
 * shares with the question, best first (ties: thread, then seq ascending), messages sharing none left out.
 */
export function wordOverlapRanking(
  conversations: ResourceConversations,
  question: string,
  limit: number,
): RankedHit[] {
  const asked = wordsOf(question)
  const scored: (RankedHit & { score: number })[] = []
  for (const { threadId, messages } of conversations.threads)
    for (const [index, message] of messages.entries()) {
      let score = 0
      for (const word of wordsOf(message.content)) if (asked.has(word)) score++
      if (score > 0) scored.push({ threadId, seq: index + 1, score })
    }
  scored.sort(
    (left, right) =>
      right.score - left.score || left.threadId.localeCompare(right.threadId) || left.seq - right.seq,
  )
  return scored.slice(0, limit).map(({ threadId, seq }) => ({ threadId, seq }))
}
