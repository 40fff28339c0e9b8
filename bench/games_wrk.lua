-- wrk script for bench/games.sh: the moves of many games held by the server,
-- or the same moves through stateless /v1/play.
--   LP_MODE=game      POST /v1/games/{id}/moves with move j's body
--   LP_MODE=play      POST /v1/play with the board before move j and move j
--   LP_GAMES=N        games (play: only the order depends on N)
--   LP_THREADS=T      wrk's -t: thread t plays its own range of the games
--   LP_IDS=FILE       game ids, one a line (game mode)
--   LP_MOVES=FILE     line j: move j's body (game mode)
--   LP_PLAY=FILE      line j: the /v1/play body of move j (play mode)
--   LP_DELAY_MS=D     pace each connection as bench/http_wrk.lua does
-- Each thread sends move 0 of each of its games, then move 1 of each, ...:
-- two moves of one game are as many requests apart as the thread has games,
-- so one is answered long before the next is sent. Past the last move of
-- the list a thread starts it again (counted as `wrapped`: those moves get
-- 409, the games being won).
-- done() prints one machine-readable line:
--   LPSTAT requests=N duration_us=N non2xx=N sockerr=N p50_us=N p90_us=N
--          p99_us=N max_us=N issued=N wrapped=N

local mode = os.getenv("LP_MODE")
local games = tonumber(os.getenv("LP_GAMES") or "")
local nthreads = tonumber(os.getenv("LP_THREADS") or "")
assert(mode == "game" or mode == "play", "LP_MODE must be game or play")
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
  if mode == "game" then
    local ids, moves = lines("LP_IDS"), lines("LP_MOVES")
    assert(#ids >= first + count - 1, "LP_IDS has fewer ids than LP_GAMES")
    for j = 1, #moves do
      for g = first, first + count - 1 do
        reqs[#reqs + 1] = wrk.format("POST", "/v1/games/" .. ids[g] .. "/moves", headers, moves[j])
      end
    end
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
  if issued >= total then wrapped = wrapped + 1 end
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
