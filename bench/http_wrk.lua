-- wrk script for bench/http_small.sh.
--   LP_BODY=FILE      POST this file as application/json (unset: plain GET)
--   LP_ACCEPT_ENCODING=V  send Accept-Encoding: V with every request
--   LP_DELAY_MS=D     pace each connection: wait D ms (may be fractional)
--                     after each response before sending the next request,
--                     so C connections ask for about 1000 * C / D req/s
-- done() prints one machine-readable line:
--   LPSTAT requests=N duration_us=N non2xx=N sockerr=N p50_us=N p90_us=N p99_us=N max_us=N

local body_file = os.getenv("LP_BODY")
if body_file and body_file ~= "" then
  local f = assert(io.open(body_file, "rb"))
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.body = f:read("*a")
  f:close()
end

local accept_encoding = os.getenv("LP_ACCEPT_ENCODING")
if accept_encoding and accept_encoding ~= "" then
  wrk.headers["Accept-Encoding"] = accept_encoding
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
  io.write(string.format(
    "LPSTAT requests=%d duration_us=%d non2xx=%d sockerr=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.duration, e.status,
    e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
