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
 * ARGV: expectedSeq, ttlSeconds (0: none), count, then three runs prepared by the client so that the
 * script only checks and hands them on (no per-item Lua work on the hot path):
 *   ids:            id_1 … id_count                       (for HMGET)
 *   zset pairs:     seq_1 member_1 … seq_count member_count (for ZADD)
 *   id index pairs: id_1 seq_1 … id_count seq_count       (for HSET)
 * where seq_i = expectedSeq + i and member_i is the item's stored JSON, which ends `,"seq":<seq_i>}`.
 * Those seqs are only right if the thread is at expectedSeq, which the script checks before writing.
 *
 * When every id is already stored with the same item (a re-sent append whose reply was lost), replies
 * `stored` and their seqs, writing nothing; when only some are, or with another item, `duplicate` and
 * the id. Otherwise checks expectedSeq (`conflict` and the last seq), stores the items and replies
 * `ok` and the previous last seq (= expectedSeq).
 */
export const APPEND_SCRIPT = script(`
local ttl = tonumber(ARGV[2])
local count = tonumber(ARGV[3])
local IDS = 4
local PAIRS = IDS + count
local FIELDS = PAIRS + 2 * count

-- Key checks, in key order, all before the first write. Only the log needs a TYPE call: the seq
-- counter and the id index are read below anyway, and GET/HMGET fail with WRONGTYPE on a value of
-- another type, which redis.pcall turns into a reply we can answer 'corrupt' to (the TYPE call then
-- runs only on that rare path, to name what the key holds). With a ttl every key gets an EXPIRE, so
-- all six are checked.
local bad = check_type(1)
if bad then return bad end
if ttl > 0 then
  bad = check_type(2)
  if bad then return bad end
end
local last = 0
local seq = redis.pcall('GET', KEYS[3])
if type(seq) == 'table' and seq.err then return check_type(3) or seq end
if seq then
  if not string.match(seq, '^%d+$') then
    return corrupt(3, 'a seq counter that is not a whole number')
  end
  last = tonumber(seq)
end
local got = {}
if count > 0 then
  -- Many fields per call (in chunks that unpack can spread) rather than one call per item.
  for start = 1, count, CHUNK do
    local stop = math.min(start + CHUNK - 1, count)
    local chunk = redis.pcall('HMGET', KEYS[4], unpack(ARGV, IDS + start - 1, IDS + stop - 1))
    if chunk.err then return check_type(4) or chunk end
    for offset = 1, #chunk do got[start + offset - 1] = chunk[offset] end
  end
else
  bad = check_type(4)
  if bad then return bad end
end
if ttl > 0 then
  bad = check_type(5) or check_type(6)
  if bad then return bad end
end

if count > 0 then
  local found = 0
  local first_found = nil
  for index = 1, count do
    if got[index] then
      found = found + 1
      if not first_found then first_found = ARGV[IDS + index - 1] end
    end
  end
  if found == count then
    -- A re-send: each stored item must be the one sent, with the seq it was stored at (which differs
    -- from seq_i when the re-send came with another expectedSeq).
    local bad_archive = check_type(2)
    if bad_archive then return bad_archive end
    local reply = {'stored'}
    for index = 1, count do
      local stored_seq = got[index]
      local sent_seq = ARGV[PAIRS + 2 * index - 2]
      local member = ARGV[PAIRS + 2 * index - 1]
      if stored_seq ~= sent_seq then
        -- Strip the ',"seq":<sent_seq>}' ending and put the stored seq there instead.
        member = with_seq(string.sub(member, 1, -(#sent_seq + 9)) .. '}', stored_seq)
      end
      local members = redis.call('ZRANGE', KEYS[1], stored_seq, stored_seq, 'BYSCORE')
      if #members == 0 then members = redis.call('ZRANGE', KEYS[2], stored_seq, stored_seq, 'BYSCORE') end
      if members[1] ~= member then
        return {'duplicate', ARGV[IDS + index - 1]}
      end
      reply[index + 1] = stored_seq
    end
    return reply
  end
  if found > 0 then return {'duplicate', first_found} end
end
if last ~= tonumber(ARGV[1]) then return {'conflict', string.format('%d', last)} end
if count == 0 then return {'ok', string.format('%d', last)} end
-- The thread is at expectedSeq, so the client's seqs are the next ones: hand its runs on as they are.
for start = 1, count, CHUNK do
  local stop = math.min(start + CHUNK - 1, count)
  redis.call('ZADD', KEYS[1], unpack(ARGV, PAIRS + 2 * start - 2, PAIRS + 2 * stop - 1))
  redis.call('HSET', KEYS[4], unpack(ARGV, FIELDS + 2 * start - 2, FIELDS + 2 * stop - 1))
end
redis.call('SET', KEYS[3], ARGV[PAIRS + 2 * count - 2])
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
