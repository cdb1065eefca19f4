import { describe, expect, it } from 'vitest'
import { createLevelLadder } from '../../levels'
import { TestHistory } from '../../testing/test-history'
import { planAutoTransition } from './auto-transition-plan'

const ladder = createLevelLadder(['global', 'project', 'task'])
const invalid = expect.objectContaining({ code: 'STRATA_INVALID_OPTIONS' })

/** A global chat turn, then a project and a task opened in turn 2. */
function scoped() {
  const history = TestHistory.plain(1)
  history.user('build it')
  history.open('project', 'Site') // seq 4
  history.open('task', 'Header') // seq 5
  return history
}

describe('planAutoTransition at the narrowest level', () => {
  it('closes the task at 20 items of its view', () => {
    const history = scoped()
    for (let index = 0; index < 18; index++) history.assistant()
    expect(planAutoTransition(history.items, ladder, 'task', { now: 0 })).toBeUndefined()
    history.assistant()
    expect(planAutoTransition(history.items, ladder, 'task', { now: 0 })).toEqual({
      reason: 'size-limit',
      level: 'task',
      fromSeq: 5,
      toSeq: 24,
      counts: { items: 20, toolActions: 0, requests: 0, idleMs: 0 },
    })
  })

  it('closes the task at 10 tool actions, once every result is in', () => {
    const history = scoped()
    for (let index = 0; index < 9; index++) history.result(history.call())
    expect(planAutoTransition(history.items, ladder, 'task', { now: 0 })).toBeUndefined()
    const id = history.call()
    expect(planAutoTransition(history.items, ladder, 'task', { now: 0 })).toBeUndefined()
    history.result(id)
    expect(planAutoTransition(history.items, ladder, 'task', { now: 0 })).toMatchObject({
      reason: 'size-limit',
      counts: { items: 21, toolActions: 10 },
    })
  })

  it('counts only the trailing run since the previous task closed', () => {
    const history = scoped()
    for (let index = 0; index < 15; index++) history.assistant()
    history.items.push({
      id: 't',
      seq: history.items.length + 1,
      ts: 0,
      level: 'project',
      turnId: history.turnId,
      type: 'transition',
      fromLevel: 'task',
      reason: 'task-complete',
      agentFacingMessage: '[ACTIONS]',
      userFacingMessage: null,
      range: { fromSeq: 5, toSeq: 20 },
    })
    history.open('task', 'Footer')
    for (let index = 0; index < 10; index++) history.assistant()
    expect(planAutoTransition(history.items, ladder, 'task', { now: 0 })).toBeUndefined()
    expect(
      planAutoTransition(history.items, ladder, 'task', { now: 0, narrowest: { items: 11 } }),
    ).toMatchObject({ fromSeq: 22, toSeq: 32, counts: { items: 11 } })
  })

  it('waits while the newest item is a request still unanswered', () => {
    const history = scoped()
    for (let index = 0; index < 25; index++) history.assistant()
    history.user()
    expect(planAutoTransition(history.items, ladder, 'task', { now: 0 })).toBeUndefined()
  })
})

describe('planAutoTransition at a middle level', () => {
  const project = () => {
    const history = TestHistory.plain(1)
    history.user()
    history.open('project', 'Site') // seq 4
    history.assistant()
    return history
  }

  it('closes the project at 30 requests', () => {
    const history = project()
    const options = { now: 0, middle: { items: 1_000 } }
    for (let index = 0; index < 29; index++) {
      history.user()
      history.assistant()
    }
    expect(planAutoTransition(history.items, ladder, 'project', options)).toBeUndefined()
    history.user()
    history.assistant()
    expect(planAutoTransition(history.items, ladder, 'project', options)).toMatchObject({
      reason: 'size-limit',
      counts: { requests: 30 },
    })
  })

  it('closes the project at 50 items', () => {
    const history = project()
    for (let index = 0; index < 48; index++) history.assistant()
    expect(planAutoTransition(history.items, ladder, 'project', { now: 0 })?.counts.items).toBe(50)
  })

  it('closes the project after an hour idle since the last request', () => {
    const history = project() // the open item is at ts 4000
    const at = (now: number, lastRequestTs?: number) =>
      planAutoTransition(history.items, ladder, 'project', {
        now,
        ...(lastRequestTs === undefined ? {} : { lastRequestTs }),
      })?.reason
    expect(at(4_000 + 3_599_999)).toBeUndefined()
    expect(at(4_000 + 3_600_000)).toBe('time-limit')
    expect(at(3_600_000, 1)).toBeUndefined()
  })

  it('closes a scope over its token limit, and never the broadest level', () => {
    const history = project()
    const options = { now: 0, scopeTokens: 5_000, maxScopeTokens: 5_000 }
    expect(planAutoTransition(history.items, ladder, 'project', options)?.reason).toBe('token-budget')
    expect(planAutoTransition(history.items, ladder, 'global', options)).toBeUndefined()
    expect(
      planAutoTransition(history.items, ladder, 'project', { ...options, scopeTokens: 4_999 }),
    ).toBeUndefined()
  })

  it('limits can be turned off or must be positive integers', () => {
    const history = project()
    for (let index = 0; index < 60; index++) history.assistant()
    expect(planAutoTransition(history.items, ladder, 'project', { now: 0, middle: false })).toBeUndefined()
    expect(() =>
      planAutoTransition(history.items, ladder, 'project', { now: 0, middle: { items: 0 } }),
    ).toThrow(invalid)
    expect(() => planAutoTransition(history.items, ladder, 'project', { now: -1 })).toThrow(invalid)
  })
})
