import { createHash } from 'node:crypto'

/** Element 0 of every log list: this prefix, then the random epoch of the log's creation. */
export const LOG_HEADER = 'strata-log:1:'

/** A Lua script with its SHA1, sent with EVALSHA and, when the server lacks it, with EVAL. */
export interface LuaScript {
  source: string
  sha1: string
}

/** A script with its SHA1 computed once. */
export function luaScript(source: string): LuaScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') }
}

/** A thread script: the shared prologue (below), then `body`. */
function script(body: string): LuaScript {
  return luaScript(`${PROLOGUE}\n${body}`)
}

/*
 * The thread scripts but the append script (which has keys and inline checks of its own, see
 * APPEND_SCRIPT) receive the thread's eight keys (see ThreadKeys) in this order: log (list), archived
 * (string: a bitmap), ids (hash), content (hash), state (string), lease (string), slots (hash),
 * content-meta (hash). Before
 * writing, every script checks that each key it uses (all but the lease when it refreshes a ttl, which
 * touches each of them but the lease, which keeps its own expiry) is absent or ours:
 * of our type, for the log a list that starts with our header, for the id index one whose seq counter
 * agrees with the log. Otherwise it replies `corrupt`, the key and what it holds, having written
 * nothing. Replies are flat arrays led by a status: ok, stored, conflict, duplicate, corrupt (a
 * successful append replies the bare string `ok`).
 *
 * The last seq is the id index's field '' (no item id is empty), so that an append reads it in the
 * same HMGET as the ids; it always equals the log's length − 1.
 */
const PROLOGUE = `
local TYPES = {'list', 'string', 'hash', 'hash', 'string', 'string', 'hash', 'hash'}
local HEADER = '${LOG_HEADER}'
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
-- The log is a list whose element 0 is our header and element seq the item of that seq. Returns a
-- corrupt reply or nil, then the header (false when there is no log).
local function check_log()
  local header = redis.pcall('LINDEX', KEYS[1], 0)
  if type(header) == 'table' then return check_type(1) or header, false end
  if header and string.sub(header, 1, #HEADER) ~= HEADER then
    return corrupt(1, 'a list that is not a Strata log'), false
  end
  return nil, header
end
-- The last seq from the id index's field '' (value), which must agree with whether the log exists.
local function check_last(value, exists)
  local last = 0
  if value then
    if not string.match(value, '^%d+$') then
      return corrupt(3, 'a seq counter that is not a whole number'), 0
    end
    last = tonumber(value)
  end
  if exists and last == 0 then return corrupt(3, 'no seq counter for the log beside it'), 0 end
  if last > 0 and not exists then return corrupt(1, 'no log for a thread at seq ' .. value), 0 end
  return nil, last
end
-- The keys a ttl refresh touches: all but the lease (KEYS[6]), which keeps its own expiry.
local TTL_KEYS = {1, 2, 3, 4, 5, 7, 8}
-- Checks the keys in used (all of TTL_KEYS when ttl > 0); returns a corrupt reply or nil, then the
-- last seq (read when the log is in used).
local function check(used, ttl)
  if ttl > 0 then used = TTL_KEYS end
  local last = 0
  for _, index in ipairs(used) do
    local bad, header
    if index == 1 then
      bad, header = check_log()
      if not bad then
        local value = redis.pcall('HGET', KEYS[3], '')
        if type(value) == 'table' then
          bad = check_type(3) or value
        else
          bad, last = check_last(value, header)
        end
      end
    else
      bad = check_type(index)
    end
    if bad then return bad, 0 end
  end
  return nil, last
end
local function refresh_ttl(ttl)
  if ttl > 0 then
    for _, index in ipairs(TTL_KEYS) do redis.call('EXPIRE', KEYS[index], ttl) end
  end
end
-- The lease (KEYS[6]): nil when a write carrying \`owner\` ('' for none) may go on; else a reply:
-- \`busy\` and the lease's remaining milliseconds while another owner's lease has not lapsed.
local function check_lease(owner)
  local holder = redis.pcall('GET', KEYS[6])
  if type(holder) == 'table' then return check_type(6) or holder end
  if holder and holder ~= owner then return {'busy', redis.call('PTTL', KEYS[6])} end
  return nil
end
`

/**
 * Checks and indexes an append, and writes its items in one of two ways.
 *
 * KEYS: log, ids, lease; with a ttl also archived, content, state, slots, content-meta (the refresh touches every
 * key but the lease, so every key is checked); for the transaction path the gate last. ARGV:
 * expectedSeq; the lease owner the append carries ('' for none); ttlSeconds, only when KEYS has the
 * ttl's keys; the header's random epoch, only when expectedSeq is 0 (no other append can start a log);
 * id_1, seq_1, … id_count, seq_count; then for the script path member_1 … member_count. The client
 * serialises member_i with seq_i = expectedSeq + i, right only if the thread is at expectedSeq, which
 * is checked here; then the (id, seq) pairs go to HSET as they came, with no Lua string or table made
 * for them (a fifth of the script's time for 100 items). (Arguments an append does not need are left
 * out rather than sent empty: each one costs the server a Lua string and a table slot on every call.)
 *
 * Small appends carry their members and the script pushes them. Larger ones come as the first command
 * of a transaction (MULTI, this script, `RPUSHX gate member_1 … member_count`, `RENAME gate log`,
 * EXEC), so that their JSON never passes through Lua, where long strings cost several times what the
 * whole native write does. The gate is a key of the thread's slot with a random name, absent before
 * the transaction. Only this script, after every check has passed, creates it: it renames the log to
 * the gate (O(1)), or starts a new log there with the header. So the RPUSHX appends the items only
 * when the checks passed (it does nothing to an absent key) and the RENAME puts the log back; after
 * any other outcome (a conflict, a duplicate, a foreign value, a script the server does not know) both
 * find no gate and nothing is written.
 *
 * When every id is already stored (a re-sent append whose reply was lost), replies `stored` and, for
 * each, its seq and stored JSON, writing nothing: the client compares them with what it sent. When only
 * some are, `duplicate` and the first. Otherwise checks the lease (`busy` and its remaining
 * milliseconds while another owner's has not lapsed: store contract `v2`), then expectedSeq
 * (`conflict` and the last seq), indexes the ids, writes or lets through the items and replies the
 * bare string `ok`.
 *
 * Every append runs this script, so it is written for the cost of a one-item append, which is mostly
 * the server's fixed cost per command called from Lua and per Lua value made: no shared prologue (its
 * helpers are closures and tables made anew on every call), checks inline, no table of its own for
 * one item, and five commands on the way: `LINDEX` reads the log's header (and fails on a foreign
 * type), `HMGET` the seq counter and the ids (and fails on a foreign type), `GET` the lease, `HSET`
 * indexes, `RPUSH` writes. `TYPE` runs only to name what a failed command found, and with a ttl for the keys an append
 * otherwise leaves alone. None of this is cached between calls: a foreign value written under a key
 * of a thread this store already knows is found as surely as one written before the thread existed.
 */
export const APPEND_SCRIPT = luaScript(`
local gate
local ttl = 0
local IDS = 3
if #KEYS >= 8 then
  ttl = tonumber(ARGV[3])
  IDS = 4
  gate = KEYS[9]
else
  gate = KEYS[4]
end
local epoch
if ARGV[1] == '0' then
  epoch = ARGV[IDS]
  IDS = IDS + 1
end
local count = (#ARGV - IDS + 1) / 2
if not gate then count = (#ARGV - IDS + 1) / 3 end

local header = redis.pcall('LINDEX', KEYS[1], '0')
if header then
  if type(header) == 'table' then
    local actual = redis.call('TYPE', KEYS[1])['ok']
    if actual == 'list' or actual == 'none' then return header end
    return {'corrupt', KEYS[1], 'a ' .. actual .. ' where a list belongs'}
  end
  if string.find(header, '${LOG_HEADER}', 1, true) ~= 1 then
    return {'corrupt', KEYS[1], 'a list that is not a Strata log'}
  end
end
if ttl > 0 then
  local TYPES = {'list', 'hash', 'string', 'string', 'hash', 'string', 'hash', 'hash'}
  for index = 4, 8 do
    local actual = redis.call('TYPE', KEYS[index])['ok']
    if actual ~= 'none' and actual ~= TYPES[index] then
      return {'corrupt', KEYS[index], 'a ' .. actual .. ' where a ' .. TYPES[index] .. ' belongs'}
    end
  end
end

-- The seq counter (field '') and the ids (ARGV[IDS + 2 * index - 2]), CHUNK at a time: unpack has a
-- limit.
local CHUNK = 500
local head
if count == 1 then
  head = redis.pcall('HMGET', KEYS[2], '', ARGV[IDS])
else
  local fields = {''}
  for index = 1, math.min(count, CHUNK) do fields[index + 1] = ARGV[IDS + 2 * index - 2] end
  head = redis.pcall('HMGET', KEYS[2], unpack(fields))
end
if head.err then
  local actual = redis.call('TYPE', KEYS[2])['ok']
  if actual == 'hash' or actual == 'none' then return head end
  return {'corrupt', KEYS[2], 'a ' .. actual .. ' where a hash belongs'}
end
-- The counter, when it is the expected seq (digits from the client), needs no check of its form.
local value = head[1]
local last = 0
if value then
  if value ~= ARGV[1] and not string.find(value, '^%d+$') then
    return {'corrupt', KEYS[2], 'a seq counter that is not a whole number'}
  end
  last = tonumber(value)
end
if header and last == 0 then return {'corrupt', KEYS[2], 'no seq counter for the log beside it'} end
if last > 0 and not header then return {'corrupt', KEYS[1], 'no log for a thread at seq ' .. value} end

-- head[1 + index] is the stored seq of id_index, or false.
local found = 0
for index = 2, #head do
  if head[index] then found = found + 1 end
end
for start = CHUNK + 1, count, CHUNK do
  local fields = {}
  for index = start, math.min(start + CHUNK - 1, count) do fields[#fields + 1] = ARGV[IDS + 2 * index - 2] end
  local chunk = redis.call('HMGET', KEYS[2], unpack(fields))
  for offset = 1, #chunk do
    head[start + offset] = chunk[offset]
    if chunk[offset] then found = found + 1 end
  end
end
if found > 0 then
  if found < count then
    for index = 1, count do
      if head[1 + index] then return {'duplicate', ARGV[IDS + 2 * index - 2]} end
    end
  end
  local reply = {'stored'}
  for index = 1, count do
    reply[2 * index] = head[1 + index]
    reply[2 * index + 1] = redis.call('LINDEX', KEYS[1], head[1 + index]) or ''
  end
  return reply
end
-- The lease: while another owner's has not lapsed, a write of anyone else (ARGV[2], '' for a write
-- without one) is refused before anything is written.
local holder = redis.pcall('GET', KEYS[3])
if type(holder) == 'table' then
  return {'corrupt', KEYS[3], 'a ' .. redis.call('TYPE', KEYS[3])['ok'] .. ' where a string belongs'}
end
if holder and holder ~= ARGV[2] then return {'busy', redis.call('PTTL', KEYS[3])} end
if (value or '0') ~= ARGV[1] and last ~= tonumber(ARGV[1]) then
  return {'conflict', value or '0'}
end
if count == 0 then return 'ok' end

-- The thread is at expectedSeq: the seqs the client sent are the ones the items get, and the last
-- is the new counter.
local SEQ_LAST = ARGV[IDS + 2 * count - 1]
if count == 1 then
  redis.call('HSET', KEYS[2], '', SEQ_LAST, ARGV[IDS], SEQ_LAST)
else
  redis.call('HSET', KEYS[2], '', SEQ_LAST, unpack(ARGV, IDS, IDS + 2 * math.min(count, CHUNK) - 1))
  for start = CHUNK + 1, count, CHUNK do
    local stop = math.min(start + CHUNK - 1, count)
    redis.call('HSET', KEYS[2], unpack(ARGV, IDS + 2 * start - 2, IDS + 2 * stop - 1))
  end
end
if not gate then
  if not header then redis.call('RPUSH', KEYS[1], '${LOG_HEADER}' .. epoch) end
  local MEMBERS = IDS + 2 * count
  if count == 1 then
    redis.call('RPUSH', KEYS[1], ARGV[MEMBERS])
  else
    for start = 1, count, CHUNK do
      local stop = math.min(start + CHUNK - 1, count)
      redis.call('RPUSH', KEYS[1], unpack(ARGV, MEMBERS + start - 1, MEMBERS + stop - 1))
    end
  end
elseif header then
  redis.call('RENAME', KEYS[1], gate)
else
  redis.call('RPUSH', gate, '${LOG_HEADER}' .. epoch)
end
-- The gate gets the ttl too: RENAME carries it over to the log. The lease keeps its own expiry.
if ttl > 0 then
  for index = 1, #KEYS do
    if index ~= 3 then redis.call('EXPIRE', KEYS[index], ttl) end
  end
end
return 'ok'
`)

/**
 * ARGV: expectedSeq ('' for none), ttlSeconds, the lease owner ('' for none), then the seqs to
 * archive. Sets each one's bit in the archived bitmap; the items stay where they are in the log.
 * Replies `ok` and how many were active, `conflict` and the last seq, or `busy` (see check_lease).
 */
export const ARCHIVE_SCRIPT = script(`
local ttl = tonumber(ARGV[2])
local bad, last = check({1, 2}, ttl)
if bad then return bad end
local busy = check_lease(ARGV[3])
if busy then return busy end
if ARGV[1] ~= '' and last ~= tonumber(ARGV[1]) then
  return {'conflict', string.format('%d', last)}
end
local moved = 0
for index = 4, #ARGV do
  local seq = tonumber(ARGV[index])
  if seq <= last and redis.call('SETBIT', KEYS[2], seq, 1) == 0 then moved = moved + 1 end
end
if moved > 0 then refresh_ttl(ttl) end
return {'ok', string.format('%d', moved)}
`)

/**
 * Plans a read, writing nothing. KEYS: log, archived. ARGV: fromSeq, toSeq ('' for the end), limit
 * ('' for none), which seqs (0: active, 1: archived). Replies `ok`, the log's header ('' when there is
 * no log), its last seq and the wanted seqs in range as runs: first_1, last_1, first_2, last_2, …
 */
export const READ_PLAN_SCRIPT = script(`
local bad, header = check_log()
if bad then return bad end
local reply = {'ok', header or '', '0'}
if not header then return reply end
local last = redis.call('LLEN', KEYS[1]) - 1
reply[3] = string.format('%d', last)
local low = math.max(tonumber(ARGV[1]), 1)
local high = last
if ARGV[2] ~= '' then high = math.min(tonumber(ARGV[2]), last) end
local limit = tonumber(ARGV[3]) or -1
local want = tonumber(ARGV[4])
if want == 0 and low <= high then
  -- Past a long archived stretch in one native call: the first active seq from low on.
  local first = redis.pcall('BITPOS', KEYS[2], 0, math.floor(low / 8))
  if type(first) == 'table' then return check_type(2) or first end
  if first > low then low = first end
end
if low > high then return reply end
local from_byte = math.floor(low / 8)
local bits = redis.pcall('GETRANGE', KEYS[2], from_byte, math.floor(high / 8))
if type(bits) == 'table' then return check_type(2) or bits end
-- A byte that holds none of the wanted seqs: all set (when active ones are wanted) or all clear.
local none = want == 0 and 255 or 0
local found = 0
local run_first, run_last = nil, nil
local seq = low
while seq <= high do
  local position = math.floor(seq / 8) - from_byte + 1
  if want == 1 and position > #bits then break end
  if want == 0 and position > #bits then
    -- Past the bitmap's end every seq is active (a thread never archived has no bitmap): the rest
    -- of the range, up to the limit, is one run.
    local through = high
    if limit >= 0 and through - seq + 1 > limit - found then through = seq + limit - found - 1 end
    if run_last ~= seq - 1 then
      if run_first then
        reply[#reply + 1] = run_first
        reply[#reply + 1] = run_last
      end
      run_first = seq
    end
    run_last = through
    break
  end
  local byte = string.byte(bits, position) or 0
  if byte == none and seq % 8 == 0 then
    seq = seq + 8
  elseif byte == 255 - none and seq % 8 == 0 and seq + 7 <= high and (limit < 0 or found + 8 < limit) then
    -- A byte that holds only wanted seqs (a long log's usual case): all eight join the run at once.
    if run_last == seq - 1 then
      run_last = seq + 7
    else
      if run_first then
        reply[#reply + 1] = run_first
        reply[#reply + 1] = run_last
      end
      run_first, run_last = seq, seq + 7
    end
    found = found + 8
    seq = seq + 8
  else
    if math.floor(byte / 2 ^ (7 - seq % 8)) % 2 == want then
      if run_last == seq - 1 then
        run_last = seq
      else
        if run_first then
          reply[#reply + 1] = run_first
          reply[#reply + 1] = run_last
        end
        run_first, run_last = seq, seq
      end
      found = found + 1
      if found == limit then break end
    end
    seq = seq + 1
  end
end
if run_first then
  reply[#reply + 1] = run_first
  reply[#reply + 1] = run_last
end
return reply
`)

/**
 * ARGV: ttlSeconds, memory id, record JSON, the JSON of the record's fields (see ThreadKeys'
 * contentMeta). Stores or replaces the content record and its fields together.
 */
export const PUT_CONTENT_SCRIPT = script(`
local ttl = tonumber(ARGV[1])
local bad = check({4, 8}, ttl)
if bad then return bad end
redis.call('HSET', KEYS[4], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[8], ARGV[2], ARGV[4])
refresh_ttl(ttl)
return {'ok'}
`)

/** ARGV: ttlSeconds, state JSON, the lease owner ('' for none). Replaces the thread state. */
export const SET_STATE_SCRIPT = script(`
local ttl = tonumber(ARGV[1])
local bad = check({5}, ttl)
if bad then return bad end
local busy = check_lease(ARGV[3])
if busy then return busy end
redis.call('SET', KEYS[5], ARGV[2])
refresh_ttl(ttl)
return {'ok'}
`)

/**
 * On the registry key alone. ARGV: thread id, the score it had when found empty. Removes the entry
 * only if no write has registered the thread again since.
 */
export const PRUNE_REGISTRY_SCRIPT = luaScript(`
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
`)

/**
 * KEYS: log, tombstone. ARGV: now (epoch ms), the tombstone's ttl in seconds. Before a delete: records
 * the log's header in the tombstone (see tombstoneKey). Replies 1 when there was a log.
 */
export const TOMBSTONE_SCRIPT = luaScript(`
local header = redis.pcall('LINDEX', KEYS[1], 0)
if type(header) ~= 'string' then return 0 end
redis.call('HSET', KEYS[2], header, ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return 1
`)

/**
 * ARGV: ttlSeconds, the slot name, the value's JSON ('' removes the slot), the lease owner ('' for
 * none). Sets or removes the slot in the slots hash (KEYS[7]). Like every write, it refreshes the ttl of
 * all the thread's keys but the lease, the slots hash's included, so that the hash and the log expire
 * together.
 */
export const SET_SLOT_SCRIPT = script(`
local ttl = tonumber(ARGV[1])
local bad = check({7}, ttl)
if bad then return bad end
local busy = check_lease(ARGV[4])
if busy then return busy end
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[7], ARGV[2])
else
  redis.call('HSET', KEYS[7], ARGV[2], ARGV[3])
end
refresh_ttl(ttl)
return {'ok'}
`)
