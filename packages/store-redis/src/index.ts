export type { RedisPersistence } from './redis-persistence'
export { type RedisStore, type RedisStoreClient, type RedisStoreOptions, redisStore } from './redis-store'
