-- Token bucket shared by every serve process: refills `rate` tokens per second up to `rate`.
-- KEYS: bucket hash
-- ARGV: rate (tokens per second)
-- Returns 0 when a token was taken, else the milliseconds until one is available.
local rate = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1]) or rate
local ts = tonumber(state[2]) or now
tokens = math.min(rate, tokens + (now - ts) * rate / 1000)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) * 1000 / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', now)
redis.call('PEXPIRE', KEYS[1], 2000)
return wait
