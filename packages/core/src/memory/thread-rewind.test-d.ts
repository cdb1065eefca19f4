import { expectTypeOf } from 'vitest'
import type { RewindEvent } from '../events'
import type { Item } from '../items'
import { createMemory, type Divergence, type RewindResult } from '.'

// Checked by `tsc` (pnpm typecheck): a failing expectation is a compile error.

async function rewindTypes() {
  const memory = createMemory({ levels: ['global', 'session'] })
  const thread = await memory.thread('t')
  const divergence = await thread.divergence([{ role: 'user', content: 'Hi' }], { history: 'full' })
  expectTypeOf(divergence).toEqualTypeOf<Divergence | undefined>()
  const result = await thread.rewind({ afterSeq: 3, expectedLastSeq: 4 })
  expectTypeOf(result).toEqualTypeOf<RewindResult<'global' | 'session'>>()
  expectTypeOf(result.archived).toEqualTypeOf<Item<'global' | 'session'>[]>()
  memory.on('rewind', (event) => {
    expectTypeOf(event).toEqualTypeOf<RewindEvent>()
  })
  // @ts-expect-error: rewind needs afterSeq
  await thread.rewind({ expectedLastSeq: 4 })
}

export { rewindTypes }
