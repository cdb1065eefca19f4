import { expectTypeOf } from 'vitest'
import { StrataError } from '../errors'
import { inMemoryStore, type StoreLeaseMethods, type StrataStore } from '../stores'
import { createMemory, type ThreadHold } from '.'

// Checked by `tsc` (pnpm typecheck): a failing expectation is a compile error.

async function holdTypes() {
  const memory = createMemory()
  const thread = await memory.thread('t')
  const hold = await thread.hold({ ttlMs: 10_000 })
  expectTypeOf(hold).toEqualTypeOf<ThreadHold>()
  expectTypeOf(hold.threadId).toEqualTypeOf<string>()
  expectTypeOf(hold.release).returns.toEqualTypeOf<Promise<void>>()
  expectTypeOf(hold[Symbol.asyncDispose]).returns.toEqualTypeOf<Promise<void>>()
  expectTypeOf(memory.settled).returns.toEqualTypeOf<Promise<void>>()
  expectTypeOf(memory.close).returns.toEqualTypeOf<Promise<void>>()
  // @ts-expect-error: ttlMs is a number of milliseconds
  await thread.hold({ ttlMs: '30s' })
  try {
    await thread.hold()
  } catch (error) {
    if (StrataError.isInstance(error, 'STRATA_THREAD_BUSY')) {
      expectTypeOf(error.details.threadId).toEqualTypeOf<string>()
      expectTypeOf(error.details.expiresAt).toEqualTypeOf<number | undefined>()
    }
    if (StrataError.isInstance(error, 'STRATA_STORE_CAPABILITY')) {
      expectTypeOf(error.details.capability).toEqualTypeOf<string>()
    }
  }
  // The built-in store has the lease; the contract keeps it optional for v1 stores.
  expectTypeOf(inMemoryStore()).toExtend<StrataStore & StoreLeaseMethods>()
  expectTypeOf<StrataStore['acquireLease']>().toEqualTypeOf<StoreLeaseMethods['acquireLease'] | undefined>()
}

export { holdTypes }
