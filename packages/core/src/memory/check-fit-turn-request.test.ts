import { describe, expect, it } from 'vitest'
import { StrataError } from '../errors'
import { inMemoryStore } from '../stores'
import { storedThread } from '../testing/stored-thread'
import { createMemory } from './create-memory'

/**
 * The fit check of an append read the plain level view: inside a scope that hides the turn's request
 * it left the request out, accepted a write whose context() then could not fit, and stored it.
 */
describe('the fit check counts the turn request a scope hides', () => {
  it('refuses, storing nothing, a write whose context could not keep the request beside what is sent alongside', async () => {
    const store = inMemoryStore()
    const thread = await createMemory({ store, compaction: { budget: { inputTokens: 1_000 } } }).thread(
      'scoped',
    )
    await thread.append({
      role: 'user',
      content: `Please reconcile these accounts: ${'ledger line '.repeat(150)}`,
    })
    await thread.enter('task', { title: 'Reconcile' })
    // Room for the scope's opening beside this, not for the request as well (even cut to its smallest).
    const fit = { alongside: 'tool definition '.repeat(360) }
    await expect(thread.context({ alongside: fit.alongside })).rejects.toSatisfy((error) =>
      StrataError.isInstance(error, 'STRATA_BUDGET_EXCEEDED'),
    )
    const before = await storedThread(store, 'scoped')
    const error = await thread
      .append({ role: 'assistant', content: 'Starting.' }, { fit })
      .catch((caught: unknown) => caught)
    expect(StrataError.isInstance(error, 'STRATA_BUDGET_EXCEEDED')).toBe(true)
    expect(await storedThread(store, 'scoped')).toEqual(before)
  })
})
