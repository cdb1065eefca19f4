import { createClient, createCluster } from 'redis'
import { expectTypeOf } from 'vitest'
import { type RedisStore, redisStore } from './index'

// The clients users create with `redis` are accepted as they come.
redisStore({ client: createClient() })
redisStore({ client: createClient({ url: 'redis://localhost:6379', RESP: 3 }) })
redisStore({ client: createClient({ RESP: 2 }) })
redisStore({ client: createCluster({ rootNodes: [{ url: 'redis://localhost:7000' }] }) })
redisStore({ url: 'redis://localhost:6379', prefix: 'app', ttlSeconds: 3600 })
redisStore()

expectTypeOf(redisStore({})).toEqualTypeOf<RedisStore>()
expectTypeOf(redisStore({}).close).toEqualTypeOf<() => Promise<void>>()
redisStore({
  client: createClient({
    scripts: {},
    RESP: 2,
  }),
})

// @ts-expect-error: not a redis client
redisStore({ client: {} })
