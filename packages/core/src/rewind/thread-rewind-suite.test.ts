import { inMemoryStore } from '../stores'
import { describeThreadRewind } from '../testing'

describeThreadRewind('inMemoryStore', () => inMemoryStore())
