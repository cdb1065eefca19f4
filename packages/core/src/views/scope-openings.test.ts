import { describe, expect, it } from 'vitest'
import type { Item } from '../items'
import { oneOpeningPerScope } from './scope-openings'

const opening = (seq: number, continuedFrom?: number): Item => ({
  id: `o${seq}`,
  seq,
  ts: seq,
  level: 'task',
  turnId: 'turn_0001',
  type: 'message',
  role: 'user',
  content: [{ type: 'text', text: 'Task: T' }],
  scope: { title: 'T', ...(continuedFrom === undefined ? {} : { continuedFrom }) },
})
const step = (seq: number): Item => ({
  id: `a${seq}`,
  seq,
  ts: seq,
  level: 'task',
  turnId: 'turn_0001',
  type: 'message',
  role: 'assistant',
  content: [{ type: 'text', text: 'step' }],
})
const ids = (items: readonly Item[]) => items.map((item) => item.id)

describe('oneOpeningPerScope', () => {
  it('leaves out reopenings of an opening the view shows, through chains of reopenings', () => {
    const view = [opening(2), opening(4, 2), step(5), opening(7, 4), step(8)]
    expect(ids(oneOpeningPerScope(view))).toEqual(['o2', 'a5', 'a8'])
  })

  it('keeps a reopening whose opening the view does not show, and an untouched view is the same array', () => {
    const view = [opening(4, 2), step(5)]
    expect(oneOpeningPerScope(view)).toBe(view)
    const other = [opening(2), step(3), opening(6, 5)]
    expect(ids(oneOpeningPerScope(other))).toEqual(['o2', 'a3', 'o6'])
  })
})
