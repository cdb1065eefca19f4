import { inMemoryStore } from '../stores'
import { describeContentChannel } from '../testing'

describeContentChannel('inMemoryStore', () => inMemoryStore())
