import { inMemoryStore } from '../stores'
import { describeThreadOpen } from '../testing/thread-open-suite'

describeThreadOpen('inMemoryStore', () => inMemoryStore())
