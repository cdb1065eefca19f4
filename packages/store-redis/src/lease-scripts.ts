import { luaScript } from './lua-scripts'

/*
 * The lease scripts, on the lease key alone (KEYS[1]). The value is the owner token; the key's PX
 * expiry is the lease's: Redis drops a lease nobody renews, so a holder that died frees the thread.
 */

/**
 * ARGV: owner, ttlMs. Takes the lease, or extends the owner's; replies `ok`, or `busy` and the
 * remaining milliseconds of another owner's lease.
 */
export const ACQUIRE_LEASE_SCRIPT = luaScript(`
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return {'busy', redis.call('PTTL', KEYS[1])} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {'ok'}
`)

/** ARGV: owner, ttlMs. Extends the owner's lease: `ok`, or `lost` when the lease is not the owner's. */
export const RENEW_LEASE_SCRIPT = luaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {'lost'} end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {'ok'}
`)

/** ARGV: owner. Compare-and-delete: removes the lease only if it is the owner's; replies 1 or 0. */
export const RELEASE_LEASE_SCRIPT = luaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)
