import { luaScript } from './lua-scripts'

/*
 * The read scripts of queryContent, on a thread's keys (see ThreadKeys: content is KEYS[4], content-meta
 * KEYS[8]). PUT_CONTENT_SCRIPT, with the other write scripts, writes both.
 */

/**
 * On the thread's keys; reads only. Replies `ok` then every memory id and its fields' JSON (flat) from
 * the content-meta hash, when it has an entry for each record of the content hash; else `whole` (a
 * thread written before the hash existed, a foreign value): the caller reads the records themselves.
 */
export const CONTENT_FIELDS_SCRIPT = luaScript(`
local count = redis.pcall('HLEN', KEYS[4])
if type(count) ~= 'number' then return {'whole'} end
local entries = redis.pcall('HGETALL', KEYS[8])
if entries.err or #entries ~= 2 * count then return {'whole'} end
table.insert(entries, 1, 'ok')
return entries
`)

/**
 * On the thread's keys. ARGV: memory id_1, fields_1, …: the fields of records read whole, for the
 * content-meta hash of a thread written before it. Sets only entries that are missing and whose record
 * is still there, so that it never overwrites what a write put meanwhile; the hash gets the content
 * hash's expiry.
 */
export const FILL_CONTENT_FIELDS_SCRIPT = luaScript(`
for index = 1, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[4], ARGV[index]) == 1 then
    redis.call('HSETNX', KEYS[8], ARGV[index], ARGV[index + 1])
  end
end
local ttl = redis.call('PTTL', KEYS[4])
if ttl > 0 then redis.call('PEXPIRE', KEYS[8], ttl) end
return {'ok'}
`)
