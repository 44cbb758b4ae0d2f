-- One GET with the API key and bearer of the environment (APIKEY, TOKEN,
-- either may be unset), printing the RESULT line of scenario.lua: rps, p50
-- ms, p99 ms, non-2xx, socket errors, requests (bench/functions.sh).
function init(args)
  if os.getenv("APIKEY") then wrk.headers["apikey"] = os.getenv("APIKEY") end
  if os.getenv("TOKEN") then wrk.headers["Authorization"] = "Bearer " .. os.getenv("TOKEN") end
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format("RESULT %.1f %.3f %.3f %d %d %d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    errors.status, errors.connect + errors.read + errors.write + errors.timeout,
    summary.requests))
end
