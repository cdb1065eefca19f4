import { createHash } from 'node:crypto'

/** A Lua script with its SHA1, sent with EVALSHA and, when the server lacks it, with EVAL. */
export interface LuaScript {
  source: string
  sha1: string
}

function script(body: string): LuaScript {
  const source = `${PROLOGUE}\n${body}`
  return { source, sha1: createHash('sha1').update(source).digest('hex') }
}

/*
 * Every write script receives the thread's six keys (see ThreadKeys) in this order:
 * log (zset), archive (zset), seq (string), ids (hash), content (hash), state (string).
 * Before writing, it checks that each key it uses (all six when it refreshes a ttl, which touches
 * every key) is absent or of our type, and that the seq counter is a whole number; otherwise it
 * replies `corrupt`, the key and what it holds, having written nothing. Replies are flat arrays led by
 * a status: ok, stored, conflict, duplicate, corrupt.
 */
const PROLOGUE = `
local TYPES = {'zset', 'zset', 'string', 'hash', 'hash', 'string'}
local ALL = {1, 2, 3, 4, 5, 6}
local CHUNK = 500
local function corrupt(index, what)
  return {'corrupt', KEYS[index], what}
end
local function check_type(index)
  local actual = redis.call('TYPE', KEYS[index])['ok']
  if actual ~= 'none' and actual ~= TYPES[index] then
    return corrupt(index, 'a ' .. actual .. ' where a ' .. TYPES[index] .. ' belongs')
  end
  return nil
end
-- Checks the keys in used (all when ttl > 0); returns a corrupt reply or nil, then the last seq.
local function check(used, ttl)
  if ttl > 0 then used = ALL end
  local last = 0
  for _, index in ipairs(used) do
    local bad = check_type(index)
    if bad then return bad, 0 end
    if index == 3 then
      local seq = redis.call('GET', KEYS[3])
      if seq then
        if not string.match(seq, '^%d+$') then
          return corrupt(3, 'a seq counter that is not a whole number'), 0
        end
        last = tonumber(seq)
      end
    end
  end
  return nil, last
end
local function refresh_ttl(ttl)
  if ttl > 0 then
    for index = 1, #KEYS do redis.call('EXPIRE', KEYS[index], ttl) end
  end
end
local function with_seq(body, seq)
  return string.sub(body, 1, -2) .. ',"seq":' .. seq .. '}'
end
`

/**
 * ARGV: expectedSeq, ttlSeconds (0: none), then id and body for each item (the item's JSON without
 * `seq`). When every id is already stored with the same body (a re-sent append whose reply was lost),
 * replies `stored` and their seqs, writing nothing; when only some are, or with another body,
 * `duplicate` and the id. Otherwise checks expectedSeq (`conflict` and the last seq), stores the items
 * at the next seqs and replies `ok` and the previous last seq.
 */
export const APPEND_SCRIPT = script(`
local ttl = tonumber(ARGV[2])
local bad, last = check({1, 3, 4}, ttl)
if bad then return bad end
local count = (#ARGV - 2) / 2
local ids = {}
for index = 1, count do ids[index] = ARGV[1 + 2 * index] end
if count > 0 then
  local seqs = {}
  local found = 0
  local first_found = nil
  -- Many fields per call (in chunks that unpack can spread) rather than one call per item.
  for start = 1, count, CHUNK do
    local got = redis.call('HMGET', KEYS[4], unpack(ids, start, math.min(start + CHUNK - 1, count)))
    for offset, seq in ipairs(got) do
      if seq then
        found = found + 1
        seqs[start + offset - 1] = seq
        if not first_found then first_found = ids[start + offset - 1] end
      end
    end
  end
  if found == count then
    local bad_archive = check_type(2)
    if bad_archive then return bad_archive end
    local reply = {'stored'}
    for index = 1, count do
      local seq = seqs[index]
      local members = redis.call('ZRANGE', KEYS[1], seq, seq, 'BYSCORE')
      if #members == 0 then members = redis.call('ZRANGE', KEYS[2], seq, seq, 'BYSCORE') end
      if members[1] ~= with_seq(ARGV[2 + 2 * index], seq) then
        return {'duplicate', ids[index]}
      end
      reply[index + 1] = seq
    end
    return reply
  end
  if found > 0 then return {'duplicate', first_found} end
end
if last ~= tonumber(ARGV[1]) then return {'conflict', string.format('%d', last)} end
if count == 0 then return {'ok', string.format('%d', last)} end
for start = 1, count, CHUNK do
  local members = {}
  local fields = {}
  for index = start, math.min(start + CHUNK - 1, count) do
    local seq = string.format('%d', last + index)
    members[#members + 1] = seq
    members[#members + 1] = with_seq(ARGV[2 + 2 * index], seq)
    fields[#fields + 1] = ids[index]
    fields[#fields + 1] = seq
  end
  redis.call('ZADD', KEYS[1], unpack(members))
  redis.call('HSET', KEYS[4], unpack(fields))
end
redis.call('SET', KEYS[3], string.format('%d', last + count))
refresh_ttl(ttl)
return {'ok', string.format('%d', last)}
`)

/**
 * ARGV: expectedSeq ('' for none), ttlSeconds, then the seqs to move. Moves each active item with one
 * of those seqs to the archive; replies `ok` and how many moved, or `conflict` and the last seq.
 */
export const ARCHIVE_SCRIPT = script(`
local ttl = tonumber(ARGV[2])
local bad, last = check({1, 2, 3}, ttl)
if bad then return bad end
if ARGV[1] ~= '' and last ~= tonumber(ARGV[1]) then
  return {'conflict', string.format('%d', last)}
end
local moved = 0
for index = 3, #ARGV do
  local members = redis.call('ZRANGE', KEYS[1], ARGV[index], ARGV[index], 'BYSCORE')
  for _, member in ipairs(members) do
    redis.call('ZREM', KEYS[1], member)
    redis.call('ZADD', KEYS[2], ARGV[index], member)
    moved = moved + 1
  end
end
if moved > 0 then refresh_ttl(ttl) end
return {'ok', string.format('%d', moved)}
`)

/** ARGV: ttlSeconds, memory id, record JSON. Stores or replaces the content record. */
export const PUT_CONTENT_SCRIPT = script(`
local ttl = tonumber(ARGV[1])
local bad = check({5}, ttl)
if bad then return bad end
redis.call('HSET', KEYS[5], ARGV[2], ARGV[3])
refresh_ttl(ttl)
return {'ok'}
`)

/** ARGV: ttlSeconds, state JSON. Replaces the thread state. */
export const SET_STATE_SCRIPT = script(`
local ttl = tonumber(ARGV[1])
local bad = check({6}, ttl)
if bad then return bad end
redis.call('SET', KEYS[6], ARGV[2])
refresh_ttl(ttl)
return {'ok'}
`)

/**
 * On the registry key alone. ARGV: thread id, the score it had when found empty. Removes the entry
 * only if no write has registered the thread again since.
 */
export const PRUNE_REGISTRY_SCRIPT: LuaScript = (() => {
  const source = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
`
  return { source, sha1: createHash('sha1').update(source).digest('hex') }
})()
