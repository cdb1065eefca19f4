import { inMemoryStore } from '../stores'
import { storeWithOverrides } from '../stores/store-overrides'
import { describeThreadOpen } from '../testing/thread-open-suite'

describeThreadOpen('inMemoryStore', () => inMemoryStore())

/** The same store declaring no slots: the digest is kept in the state, as before slots. */
describeThreadOpen('inMemoryStore without slots', () => {
  const store = inMemoryStore()
  return storeWithOverrides(store, new Map([['flags', { ...store.flags, slots: false }]]))
})
