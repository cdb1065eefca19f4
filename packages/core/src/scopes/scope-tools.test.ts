import { describe, expect, it } from 'vitest'
import type { TransitionItem } from '../items'
import { createMemory } from '../memory/create-memory'
import { inMemoryStore } from '../stores'
import { scopeTools } from './scope-tools'

async function setup() {
  const store = inMemoryStore()
  const memory = createMemory({ store })
  const thread = await memory.thread('scope-tools')
  await thread.append({ role: 'user', content: 'Please compare the two quotes.' })
  const tools = scopeTools(thread, { levels: memory.ladder.levels })
  return { memory, thread, tools }
}

describe('scopeTools', () => {
  it('lists every level but the broadest in enter_scope, and the outcomes in exit_scope', async () => {
    const { tools } = await setup()
    const enter = tools.enter_scope.inputSchema.properties as Record<string, { enum?: string[] }>
    expect(enter.level!.enum).toEqual(['project', 'task'])
    expect(tools.enter_scope.inputSchema.required).toEqual(['level', 'title'])
    const exit = tools.exit_scope.inputSchema.properties as Record<string, { enum?: string[] }>
    expect(exit.outcome!.enum).toEqual(['complete', 'cancelled', 'aborted'])
    expect(tools.exit_scope.inputSchema.required).toEqual(['summary'])
    const custom = scopeTools({} as never, { levels: ['global', 'session', 'interaction'] })
    const customLevel = (custom.enter_scope.inputSchema.properties as Record<string, { enum?: string[] }>)
      .level
    expect(customLevel!.enum).toEqual(['session', 'interaction'])
  })

  it('enters a scope and tells the model its new level and what it sees', async () => {
    const { thread, tools } = await setup()
    const result = await tools.enter_scope.execute({
      level: 'project',
      title: 'Quotes',
      instructions: 'Compare A and B.',
    })
    expect(result).toMatchObject({ level: 'project', scopes: [{ level: 'project', title: 'Quotes' }] })
    expect((result as { message: string }).message).toContain('hidden until exit_scope')
    expect(thread.level).toBe('project')
    const view = await thread.view()
    expect(view.map((item) => item.level)).toEqual(['project'])
    expect(JSON.stringify(view[0])).toContain('Compare A and B.')
  })

  it('exits with the summary: the transition is written at the parent level and emitted', async () => {
    const { memory, thread, tools } = await setup()
    const transitions: TransitionItem[] = []
    memory.on('transition', (event) => transitions.push(event.transition))
    await tools.enter_scope.execute({ level: 'project', title: 'Quotes' })
    await thread.append({ role: 'assistant', content: 'Quote A: 120. Quote B: 105.' })
    const result = await tools.exit_scope.execute({
      outcome: 'complete',
      summary: 'B is cheaper (105 vs 120).',
    })
    expect(result).toMatchObject({
      level: 'global',
      outcome: 'complete',
      closed: { level: 'project', title: 'Quotes' },
      scopes: [],
    })
    expect(thread.level).toBe('global')
    expect(transitions).toHaveLength(1)
    expect(transitions[0]!.level).toBe('global')
    const view = await thread.view()
    expect(view.some((item) => item.type === 'transition')).toBe(true)
    expect(JSON.stringify(view)).toContain('B is cheaper (105 vs 120).')
    expect(JSON.stringify(view)).not.toContain('Quote A: 120')
  })

  it('passes the outcome through', async () => {
    const { thread, tools } = await setup()
    await tools.enter_scope.execute({ level: 'project', title: 'Quotes' })
    await tools.exit_scope.execute({ outcome: 'cancelled', summary: 'The user withdrew the request.' })
    const transition = (await thread.view()).find((item) => item.type === 'transition') as TransitionItem
    expect(transition.reason).toBe('cancelled')
  })

  it('returns a refusal by the thread as an error the model can read, and writes nothing', async () => {
    const { thread, tools } = await setup()
    const before = await thread.items()
    const exit = await tools.exit_scope.execute({ summary: 'Nothing to close.' })
    expect(exit).toMatchObject({ error: { code: 'STRATA_NO_OPEN_SCOPE' } })
    expect((exit as { error: { message: string } }).error.message).toMatch(/enter/)
    expect(await thread.items()).toEqual(before)
    // A worker at the broadest level takes a task directly; from the task, nothing narrower is left.
    const deep = await tools.enter_scope.execute({ level: 'task', title: 'Deep' })
    expect(deep).toMatchObject({ level: 'task' })
    expect(thread.level).toBe('task')
    const inside = await thread.items()
    const again = await tools.enter_scope.execute({ level: 'project', title: 'Broader' })
    expect(again).toMatchObject({ error: { code: 'STRATA_INVALID_SCOPE' } })
    expect((again as { error: { message: string } }).error.message).toMatch(/narrow/)
    expect(await thread.items()).toEqual(inside)
  })

  it.each([
    [undefined, 'enter_scope: the input must be an object'],
    [{ title: 'No level' }, 'enter_scope: level must be one of "project", "task" (got undefined)'],
    [{ level: 'global', title: 'Broadest' }, 'level must be one of "project", "task" (got "global")'],
    [{ level: 'task' }, 'title is required'],
    [{ level: 'task', title: '   ' }, 'title is required'],
    [{ level: 'task', title: 'x', instructions: 3 }, 'instructions must be a string'],
    [
      { level: 'task', title: 'x', goal: 'y' },
      "unknown parameter 'goal'; accepted: level, title, instructions",
    ],
  ])('enter_scope refuses %j with a readable error', async (input, message) => {
    const { thread, tools } = await setup()
    const result = await tools.enter_scope.execute(input)
    expect(result).toMatchObject({ error: { code: 'STRATA_INVALID_OPTIONS' } })
    expect((result as { error: { message: string } }).error.message).toContain(message)
    expect(thread.level).toBe('global')
  })

  it.each([
    [null, 'exit_scope: the input must be an object'],
    [{}, 'summary is required'],
    [{ summary: '' }, 'summary is required'],
    [
      { outcome: 'done', summary: 'x' },
      'outcome must be one of "complete", "cancelled", "aborted" (got "done")',
    ],
    [{ summary: 'x', level: 'task' }, "unknown parameter 'level'"],
  ])('exit_scope refuses %j with a readable error and keeps the scope open', async (input, message) => {
    const { thread, tools } = await setup()
    await tools.enter_scope.execute({ level: 'project', title: 'Quotes' })
    const result = await tools.exit_scope.execute(input)
    expect(result).toMatchObject({ error: { code: 'STRATA_INVALID_OPTIONS' } })
    expect((result as { error: { message: string } }).error.message).toContain(message)
    expect(thread.level).toBe('project')
  })

  it('throws what is not a Strata error (a store outage) to the caller', async () => {
    const failing = {
      level: 'global',
      scopes: [],
      enter: async () => {
        throw new Error('store down')
      },
      exit: async () => {
        throw new Error('store down')
      },
    }
    await expect(scopeTools(failing).enter_scope.execute({ level: 'task', title: 'x' })).rejects.toThrow(
      'store down',
    )
  })
})
