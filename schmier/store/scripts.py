"""The Lua scripts of the Redis store, each one atomic on the server.

Only a script makes "check, then write" one step no other client can interleave with.
Every script touches the keys of one room only (all tagged with the room's code, see
`keys.py`), so each is single-slot and would run unchanged on a Redis Cluster; the one
exception, `ADOPT_LEGACY`, runs only where old untagged keys exist, which is never a
cluster (earlier versions did not tag their keys at all).
"""

from __future__ import annotations

# KEYS: room hash, log list, chat list. ARGV: snapshot, ttl in ms.
# The log and the chat are cleared too: a leftover log of an earlier room with the same
# code must not be replayed as this room's history, nor its chat shown.
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'version', 0, 'snapshot', ARGV[1])
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""


def _commit(finished: bool) -> str:
    """The commit script; `finished`: the variant that also fills the archive's outbox
    (a commit that ends a game), so the game's end and its outbox entry are one step."""
    first = 8 if finished else 5
    outbox = (
        "redis.call('ZADD', KEYS[5], 'NX', ARGV[6], ARGV[5])\n"
        "redis.call('HSETNX', KEYS[6], ARGV[5], ARGV[7])\n"
        if finished
        else ""
    )
    return f"""
if ARGV[4] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[4] then
  return {{-1}}
end
local found = redis.call('HGET', KEYS[1], 'version')
if not found then
  return {{0}}
end
if tonumber(found) ~= tonumber(ARGV[1]) - 1 then
  return {{0, tonumber(found)}}
end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'snapshot', ARGV[2])
local n = #ARGV
local i = {first}
while i <= n do
  local j = math.min(i + 999, n)
  redis.call('RPUSH', KEYS[2], unpack(ARGV, i, j))
  i = j + 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[4], ARGV[3])
{outbox}return {{1}}
"""


# KEYS: room hash, log list, lease, chat list. ARGV: new version, snapshot, ttl in ms,
# expected lease value ('' = no lease check, single instance), entries...
# Returns {1} on success, {0} when the room is missing, {0, found} on a version clash,
# {-1} when the lease holds anything but the expected value (the fencing check: an
# owner whose lease expired or was taken over can never write again).
# Entries are pushed in batches because unpack() of a huge table overflows Lua's stack.
COMMIT = _commit(finished=False)

# The same for a commit that ends a game. KEYS: as COMMIT, then the archive's outbox
# (a sorted set of game ids by the time they ended, and a hash of their entries).
# ARGV: as COMMIT up to the lease, then game id, ended at (ms), entry, entries...
# These two keys are the only ones a room's commit shares with other rooms: on a Redis
# Cluster this one commit per game would need them in the room's slot (docs/archive.md).
COMMIT_FINISHED = _commit(finished=True)

# KEYS: room hash, log list, chat list, lease. ARGV: line, lines kept, ttl ms, expected
# lease ('' = none). Returns 1; 0 when the room is missing (no orphan chat key); -1 when
# the lease is not the caller's. Renews every expiry of the room: the chat never
# outlives the room.
CHAT = """
if ARGV[4] ~= '' and redis.call('GET', KEYS[4]) ~= ARGV[4] then
  return -1
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('RPUSH', KEYS[3], ARGV[1])
redis.call('LTRIM', KEYS[3], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 1
"""

# KEYS: lease, fence counter. ARGV: instance id, lease ms, fence ttl ms.
# The fence comes from INCR, so every acquisition of a room's lease has a new number
# and a value `instance:fence` is never handed out twice, not even to the same
# instance coming back. SET NX keeps the lease of a living owner untouched.
ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return false
end
local fence = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
local value = ARGV[1] .. ':' .. fence
if not redis.call('SET', KEYS[1], value, 'NX', 'PX', ARGV[2]) then
  return false
end
return value
"""

# KEYS: lease. ARGV: expected value, lease ms. Extends the lease only while it is ours.
RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

# KEYS: lease. ARGV: expected value. Frees the lease only while it is ours.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

# KEYS: old room, old log, old lease, old fence, new room, new log.
# A room stored by a version before hash-tagged keys: move its hash and its log to the
# new names (RENAME keeps their expiry), unless the new ones exist already. The old
# lease and fence belong to instances of the old version, which must all be stopped
# (docs/scaling.md, "Upgrading"); they are dropped. Returns 1 when a room was moved.
ADOPT_LEGACY = """
if redis.call('EXISTS', KEYS[5]) == 1 or redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('RENAME', KEYS[1], KEYS[5])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('RENAME', KEYS[2], KEYS[6])
end
redis.call('DEL', KEYS[3], KEYS[4])
return 1
"""

# KEYS: the bucket (a hash). ARGV: burst (tokens), refill per millisecond, 1 to spend
# a token or 0 to look only.
# A token bucket on Redis' own clock (TIME), so that every instance counts against the
# same budget and no two machines' clocks are compared. Looking writes nothing; a
# spend stores the refilled count and lets the key expire once it would be full again
# (a full bucket carries no information). Returns 1 when a token was (or is) there.
TOKEN_BUCKET = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local burst = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens = tonumber(state[1]) or burst
local stamp = tonumber(state[2]) or now
if now > stamp then
  tokens = math.min(burst, tokens + (now - stamp) * rate)
end
local ok = 0
if tokens >= 1 then
  ok = 1
end
if ARGV[3] == '1' then
  if ok == 1 then
    tokens = tokens - 1
  end
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', now)
  redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate) + 1000)
end
return ok
"""

# KEYS: the outbox's sorted set, its hash, the entry's claim. ARGV: game id.
# An archived game leaves the outbox in one step.
OUTBOX_DONE = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[3])
return 1
"""

# KEYS: the entry's claim. ARGV: owner, ms. Takes the claim, or renews it when it is the
# caller's own already (a retry after a failed attempt); 0 while another owner holds it.
OUTBOX_CLAIM = """
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

# KEYS: room hash. ARGV: field, value. A field of the room's own hash (a finished hand's
# analysis), so it expires with the room; nothing is written for a room that is gone.
PUT_IF_ROOM = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""

# KEYS: room hash. ARGV: field, room code, most. Appends the code to the field's
# space-separated list of a finished hand's practice rooms (`tables:<n>`), unless the
# room is gone or the list holds `most` already (0); else the list's new length.
ADD_TABLE = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
local kept = redis.call('HGET', KEYS[1], ARGV[1])
local count = 0
if kept then
  for _ in string.gmatch(kept, '%S+') do count = count + 1 end
end
if count >= tonumber(ARGV[3]) then
  return 0
end
if kept then kept = kept .. ' ' .. ARGV[2] else kept = ARGV[2] end
redis.call('HSET', KEYS[1], ARGV[1], kept)
return count + 1
"""
