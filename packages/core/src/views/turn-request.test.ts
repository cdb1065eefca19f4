import { describe, expect, it } from 'vitest'
import type { Item } from '../items'
import { createLevelLadder } from '../levels'
import { levelView } from './level-view'
import { withTurnRequest } from './turn-request'

const ladder = createLevelLadder(['global', 'project', 'task'])

/** `u` a user's request, `o` a scope's opening, `a` an assistant message, `x` a transition; then the level's initial. */
function history(codes: string): Item[] {
  return codes.split(' ').map((code, index) => {
    const seq = index + 1
    const level = { g: 'global', p: 'project', t: 'task' }[code[1]!]!
    const base = { id: `${code}${seq}`, seq, ts: seq, level, turnId: 'turn_0001' }
    if (code[0] === 'x') {
      return {
        ...base,
        type: 'transition',
        fromLevel: 'task',
        reason: 'task-complete',
        agentFacingMessage: '[ACTIONS]',
        userFacingMessage: null,
        range: { fromSeq: 1, toSeq: seq - 1 },
      }
    }
    const role = code[0] === 'a' ? 'assistant' : 'user'
    return {
      ...base,
      type: 'message',
      role,
      content: [{ type: 'text', text: code }],
      ...(code[0] === 'o' ? { scope: { title: 'T' } } : {}),
    }
  }) as Item[]
}
const ids = (items: readonly Item[]) => items.map((item) => item.id)

/** The newest user request of a history, as the thread's log keeps it. */
const requestOf = (items: readonly Item[]) =>
  items.findLast((item) => item.type === 'message' && item.role === 'user' && item.scope === undefined)

describe('withTurnRequest', () => {
  it('adds the request a scope view hides before the scope items, at its seq position', () => {
    const items = history('ug ag ug ag ot at')
    expect(ids(withTurnRequest(levelView(items, 'task', ladder), requestOf(items)))).toEqual([
      'ug3',
      'ot5',
      'at6',
    ])
  })

  it('adds the request a transition hides to the parent view, before the transition', () => {
    const items = history('ug ag ot ut at xg')
    expect(ids(withTurnRequest(levelView(items, 'global', ladder), requestOf(items)))).toEqual([
      'ug1',
      'ag2',
      'ut4',
      'xg6',
    ])
  })

  it('leaves a view that holds the request as it is (the same array), and one of a log with none', () => {
    const items = history('ug ag ot at')
    const view = levelView(items, 'global', ladder)
    expect(withTurnRequest(view, requestOf(items))).toBe(view)
    const none = history('ag ot')
    const empty = levelView(none, 'project', ladder)
    expect(withTurnRequest(empty, requestOf(none))).toBe(empty)
  })
})
