import { expectTypeOf } from 'vitest'
import type { ContextMessage } from '../context'
import type { Item } from '../items'
import { createMemory } from './create-memory'
import type { Thread } from './thread'

// Checked by `tsc` (pnpm typecheck): a failing expectation is a compile error.

async function defaultLadder() {
  const thread = await createMemory().thread('t')
  expectTypeOf(thread).toEqualTypeOf<Thread<'global' | 'project' | 'task'>>()
  expectTypeOf(thread.level).toEqualTypeOf<'global' | 'project' | 'task'>()
  expectTypeOf(thread.view).parameter(0).toEqualTypeOf<'global' | 'project' | 'task' | undefined>()
  expectTypeOf(await thread.view()).toEqualTypeOf<Item<'global' | 'project' | 'task'>[]>()
  expectTypeOf((await thread.context()).messages).toEqualTypeOf<ContextMessage[]>()
  // @ts-expect-error: 'sprint' is not a level of the default ladder
  await thread.enter('sprint', { title: 'x' })
}

async function customLadder() {
  const memory = createMemory({ levels: ['global', 'session', 'interaction'] })
  const thread = await memory.thread('t')
  expectTypeOf(thread.level).toEqualTypeOf<'global' | 'session' | 'interaction'>()
  await thread.enter('session', { title: 'Chat' })
  // @ts-expect-error: 'task' belongs to the default ladder, not this one
  await thread.view('task')
  // @ts-expect-error: modes must map to this ladder's levels
  createMemory({ levels: ['a', 'b'], modes: { busy: 'c' } })
  // @ts-expect-error: enter needs a title
  await thread.enter('interaction', {})
}

export { customLadder, defaultLadder }
