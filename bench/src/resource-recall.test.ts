import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { resourceConversations, THREAD_COUNT } from './resource-conversations.ts'
import { recallAtK, wordOverlapRanking } from './resource-recall.ts'

describe('the resource conversations', () => {
  it('are the same for the same seed, and differ for another', () => {
    expect(resourceConversations(25)).toEqual(resourceConversations(25))
    expect(resourceConversations(26)).not.toEqual(resourceConversations(25))
  })

  it('hold at least 100 questions over 20 threads, each answer planted at its thread and seq', () => {
    const { threads, questions } = resourceConversations()
    expect(threads).toHaveLength(THREAD_COUNT)
    expect(questions.length).toBeGreaterThanOrEqual(100)
    const byId = new Map(threads.map((thread) => [thread.threadId, thread]))
    for (const question of questions) {
      const message = byId.get(question.threadId)!.messages[question.seq - 1]!
      expect(message.role, question.question).toBe('user')
      expect(message.content, question.question).toContain(question.value)
    }
    // Every question's answer is a different message.
    expect(new Set(questions.map(({ threadId, seq }) => `${threadId}/${seq}`)).size).toBe(questions.length)
  })
})

describe('recallAtK', () => {
  const questions = [
    { question: 'a', threadId: 't1', seq: 3, value: 'x' },
    { question: 'b', threadId: 't2', seq: 1, value: 'y' },
  ]

  it('counts a question found when its thread and seq are within the first k hits', () => {
    const rankings = [
      [
        { threadId: 't1', seq: 1 },
        { threadId: 't2', seq: 3 },
        { threadId: 't1', seq: 3 },
      ],
      [{ threadId: 't1', seq: 1 }],
    ]
    expect(recallAtK(questions, rankings, 3)).toBe(0.5)
    // Third place is outside the first two; the same seq in another thread never counts.
    expect(recallAtK(questions, rankings, 2)).toBe(0)
  })

  it('is the share of questions whose answer is placed within k, for any rankings', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1, max: 9 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 10 }),
        (places, k) => {
          // place -1: the answer is missing; else it stands at that index among 10 other hits.
          const qs = places.map((_, index) => ({ question: '', threadId: `t${index}`, seq: 1, value: '' }))
          const rankings = places.map((place, index) => {
            const hits = Array.from({ length: 10 }, (_, at) => ({ threadId: `other${at}`, seq: 1 }))
            if (place >= 0) hits[place] = { threadId: `t${index}`, seq: 1 }
            return hits
          })
          const expected = places.filter((place) => place >= 0 && place < k).length / places.length
          expect(recallAtK(qs, rankings, k)).toBeCloseTo(expected, 12)
        },
      ),
    )
  })
})

describe('wordOverlapRanking', () => {
  it('ranks messages by the count of distinct words they share with the question', () => {
    const conversations = {
      threads: [
        {
          threadId: 'a',
          messages: [
            { role: 'user' as const, content: 'the budget for the kitchen' },
            { role: 'assistant' as const, content: 'nothing alike here' },
          ],
        },
        {
          threadId: 'b',
          messages: [{ role: 'user' as const, content: 'Kitchen budget: 4200 euros, the hard budget' }],
        },
      ],
      questions: [],
    }
    expect(wordOverlapRanking(conversations, 'What is the kitchen budget in euros?', 5)).toEqual([
      { threadId: 'b', seq: 1 },
      { threadId: 'a', seq: 1 },
    ])
  })
})
