import { describeContentChannel } from '@strata-memory/core/testing'
import { redisSuiteStores } from './testing/suite-redis'

// The content channel's key cases (offload, citation, retrieval, finished-task and archive queries, sharing) on Redis.
describeContentChannel('redisStore', redisSuiteStores('content'))
