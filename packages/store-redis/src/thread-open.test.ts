import { describeThreadOpen } from '@strata-memory/core/testing'
import { redisSuiteStores } from './testing/suite-redis'

// Opens read no archive on Redis: the digest in its slot, usage reports without it, older threads.
describeThreadOpen('redisStore', redisSuiteStores('open'))
