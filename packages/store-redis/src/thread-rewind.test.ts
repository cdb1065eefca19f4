import { describeThreadRewind } from '@strata-memory/core/testing'
import { redisSuiteStores } from './testing/suite-redis'

// Regenerate, edit, reopen, conflicts and refusals of thread.rewind() on Redis.
describeThreadRewind('redisStore', redisSuiteStores('rewind'))
