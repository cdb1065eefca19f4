import { luaScript } from './lua-scripts'

/*
 * The resource scripts. Each runs on the keys of one slot: a thread's binding, or one resource's keys
 * (KEYS: index, times, … as ResourceKeys lists them). Replies are flat arrays led by a status.
 */

/** The index member of a time and thread (see ResourceKeys.index); `%.0f` is exact below 2^53. */
const MEMBER = `
local MAX_TIME = 9007199254740991
local function member(time, thread)
  return string.format('%016.0f', MAX_TIME - time) .. ':' .. thread
end
`

/**
 * On the binding (KEYS[1]). ARGV: expected resource ('' for unbound), new resource. The compare-and-set
 * of a thread's binding: `conflict` and the actual resource ('' for none), changing nothing; or `ok`
 * and the resource whose index entry must move (''), recorded as `from` until the move is finished.
 */
export const BIND_SCRIPT = luaScript(`
local binding = redis.call('HMGET', KEYS[1], 'resource', 'from')
local actual = binding[1] or ''
if actual ~= ARGV[1] then return {'conflict', actual} end
local from = ''
if actual ~= '' and actual ~= ARGV[2] then from = actual else from = binding[2] or '' end
if from ~= '' then
  redis.call('HSET', KEYS[1], 'resource', ARGV[2], 'from', from)
elseif actual == '' then
  redis.call('HSET', KEYS[1], 'resource', ARGV[2])
end
return {'ok', from}
`)

/** On the binding (KEYS[1]). ARGV: resource, from. Marks a move finished, if it still is that move. */
export const FINISH_MOVE_SCRIPT = luaScript(`
local binding = redis.call('HMGET', KEYS[1], 'resource', 'from')
if binding[1] == ARGV[1] and binding[2] == ARGV[2] then redis.call('HDEL', KEYS[1], 'from') end
return {'ok'}
`)

/** On the binding (KEYS[1]). ARGV: resource. Removes the binding if it is to that resource. */
export const UNBIND_SCRIPT = luaScript(`
if redis.call('HGET', KEYS[1], 'resource') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return {'ok'}
`)

/**
 * KEYS: index, times. ARGV: thread, time, mode. Upserts a thread's entry: mode `max` keeps the later of
 * the entry's time and ARGV time; mode `missing` writes ARGV time only when the thread has no entry.
 */
export const UPSERT_ENTRY_SCRIPT = luaScript(`${MEMBER}
local old = redis.call('HGET', KEYS[2], ARGV[1])
local time = tonumber(ARGV[2])
if old then
  old = tonumber(old)
  if ARGV[3] == 'missing' or old >= time then return {'ok', string.format('%.0f', old)} end
  redis.call('ZREM', KEYS[1], member(old, ARGV[1]))
end
redis.call('ZADD', KEYS[1], 0, member(time, ARGV[1]))
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return {'ok', ARGV[2]}
`)

/** KEYS: index, times. ARGV: thread. Removes a thread's entry; replies `ok` and its time ('' for none). */
export const REMOVE_ENTRY_SCRIPT = luaScript(`${MEMBER}
local old = redis.call('HGET', KEYS[2], ARGV[1])
if not old then return {'ok', ''} end
redis.call('ZREM', KEYS[1], member(tonumber(old), ARGV[1]))
redis.call('HDEL', KEYS[2], ARGV[1])
return {'ok', old}
`)

/**
 * KEYS: the working memory. ARGV: expected version, value JSON, updatedAt. Writes if the version is
 * still the expected one: `ok` and the new version, or `conflict` and the actual version.
 */
export const SET_WORKING_MEMORY_SCRIPT = luaScript(`
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if version ~= tonumber(ARGV[1]) then return {'conflict', tostring(version)} end
redis.call('HSET', KEYS[1], 'version', tostring(version + 1), 'value', ARGV[2], 'updatedAt', ARGV[3])
return {'ok', tostring(version + 1)}
`)

/**
 * KEYS: the documents. ARGV: address, document JSON (without createdAt), now. Stores the document,
 * keeping the createdAt of the one it replaces; replies `ok` and its createdAt.
 */
export const PUT_DOCUMENT_SCRIPT = luaScript(`
redis.call('HSETNX', KEYS[1], 'c:' .. ARGV[1], ARGV[3])
redis.call('HSET', KEYS[1], 'd:' .. ARGV[1], ARGV[2])
return {'ok', redis.call('HGET', KEYS[1], 'c:' .. ARGV[1])}
`)

/** KEYS: a hash. Its fields and values as one flat array, whatever the connection's RESP version. */
export const HASH_ENTRIES_SCRIPT = luaScript(`
return redis.call('HGETALL', KEYS[1])
`)
