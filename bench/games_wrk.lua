-- wrk script for bench/games.sh and bench/players.sh: the moves of many
-- games held by the server, the same moves through stateless /v1/play, or
-- sign-ups.
--   LP_MODE=game      POST /v1/games/{id}/moves with move j's body
--   LP_MODE=signed    the same, each game's moves with its player's token
--   LP_MODE=play      POST /v1/play with the board before move j and move j
--   LP_MODE=signup    POST /v1/players, every request the same new name
--   LP_GAMES=N        games (play: only the order depends on N; signup: unused)
--   LP_THREADS=T      wrk's -t: thread t plays its own range of the games
--   LP_IDS=FILE       a line a game: its id, then (signed mode) a space and
--                     its player's token, sent as Authorization: Bearer
--   LP_MOVES=FILE     line j: move j's body (game mode)
--   LP_PLAY=FILE      line j: the /v1/play body of move j (play mode)
--   LP_DELAY_MS=D     pace each connection as bench/http_wrk.lua does
-- Each thread sends move 0 of each of its games, then move 1 of each, ...:
-- two moves of one game are as many requests apart as the thread has games,
-- so one is answered long before the next is sent. Past the last move of
-- the list a thread starts it again (counted as `wrapped`: those moves get
-- 409, the games being won). A sign-up is the same request every time.
-- done() prints one machine-readable line:
--   LPSTAT requests=N duration_us=N non2xx=N sockerr=N p50_us=N p90_us=N
--          p99_us=N max_us=N issued=N wrapped=N

local mode = os.getenv("LP_MODE")
local games = tonumber(os.getenv("LP_GAMES") or "")
local nthreads = tonumber(os.getenv("LP_THREADS") or "")
assert(mode == "game" or mode == "signed" or mode == "play" or mode == "signup",
  "LP_MODE must be game, signed, play or signup")
assert(games and nthreads and games >= nthreads, "LP_GAMES and LP_THREADS must be set")

local function lines(name)
  local out = {}
  local path = assert(os.getenv(name), name .. " must be set")
  for line in io.lines(path) do
    out[#out + 1] = line
  end
  return out
end

-- Setup: each thread's range of games, first .. first + count - 1.
local threads = {}
function setup(thread)
  local t = #threads
  local first = math.floor(games * t / nthreads) + 1
  thread:set("first", first)
  thread:set("count", math.floor(games * (t + 1) / nthreads) - first + 1)
  threads[#threads + 1] = thread
end

-- Running: the thread's requests, built once.
local reqs, total
issued, wrapped = 0, 0

function init(args)
  local headers = { ["Content-Type"] = "application/json" }
  reqs = {}
  if mode == "game" or mode == "signed" then
    local ids, moves = lines("LP_IDS"), lines("LP_MOVES")
    assert(#ids >= first + count - 1, "LP_IDS has fewer ids than LP_GAMES")
    local paths, signed = {}, {}
    for g = first, first + count - 1 do
      local id, token = ids[g]:match("^(%S+)%s*(%S*)$")
      assert(id, "LP_IDS line " .. g .. " is not `id [token]`")
      assert((token ~= "") == (mode == "signed"), "LP_IDS has a token a game only in signed mode")
      paths[g] = "/v1/games/" .. id .. "/moves"
      if mode == "signed" then
        signed[g] = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token }
      end
    end
    for j = 1, #moves do
      for g = first, first + count - 1 do
        reqs[#reqs + 1] = wrk.format("POST", paths[g], signed[g] or headers, moves[j])
      end
    end
  elseif mode == "signup" then
    -- Names need not be unique: every request makes a player of its own.
    reqs[1] = wrk.format("POST", "/v1/players", headers, '{"name": "bench player"}')
  else
    local plays = lines("LP_PLAY")
    for j = 1, #plays do
      local r = wrk.format("POST", "/v1/play", headers, plays[j])
      for _ = 1, count do reqs[#reqs + 1] = r end
    end
  end
  total = #reqs
  -- wrk (4.1) calls the first thread's request() once before the run, to
  -- check the request it builds: that call takes the last request, unsent,
  -- so the thread still starts at its first.
  if first == 1 then issued = -1 end
end

function request()
  if issued >= total and mode ~= "signup" then wrapped = wrapped + 1 end
  local r = reqs[(issued % total) + 1]
  issued = issued + 1
  return r
end

local delay_ms = tonumber(os.getenv("LP_DELAY_MS") or "")
if delay_ms and delay_ms > 0 then
  -- wrk truncates the delay to whole milliseconds; dither between the two
  -- neighbours so the mean delay is delay_ms.
  local base = math.floor(delay_ms)
  local frac = delay_ms - base
  math.randomseed(os.time() + math.floor((os.clock() * 1e6) % 1e6))
  function delay()
    if math.random() < frac then return base + 1 end
    return base
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  local sent, over = 0, 0
  for _, thread in ipairs(threads) do
    sent = sent + thread:get("issued")
    over = over + thread:get("wrapped")
  end
  io.write(string.format(
    "LPSTAT requests=%d duration_us=%d non2xx=%d sockerr=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d issued=%d wrapped=%d\n",
    summary.requests, summary.duration, e.status,
    e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    sent, over))
end
