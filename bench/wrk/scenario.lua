-- One wrk script for every scenario (bench/run.sh sets the environment):
--   SCENARIO  s1 | s2 | s3 | s3u | s4 | bulk | rpc | csv
--   BASE      path prefix: /rest/v1 for the gateway, empty for PostgREST
--   APIKEY    the anon key; TOKEN the bearer (a user's token for s4, bulk)
--   PREFIX    makes s4's and bulk's slugs unique across runs and targets
local scenario = os.getenv("SCENARIO")
local base = os.getenv("BASE") or ""
local prefix = os.getenv("PREFIX") or "wrk"

local threads = {}
local next_id = 0

function setup(thread)
  -- wrk's threads share one unseeded random sequence unless told apart
  -- (performance.md §4.7).
  next_id = next_id + 1
  thread:set("tid", next_id)
  table.insert(threads, thread)
end

local counter = 0

function init(args)
  math.randomseed(os.time() * 100 + (tid or 0))
  wrk.headers["apikey"] = os.getenv("APIKEY")
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("TOKEN")
  if scenario == "s1" then
    wrk.headers["Prefer"] = "count=exact"
  elseif scenario == "s2" then
    wrk.headers["Accept"] = "application/vnd.pgrst.object+json"
  elseif scenario == "s4" then
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "application/json"
    wrk.headers["Prefer"] = "return=representation"
  elseif scenario == "csv" then
    wrk.headers["Accept"] = "text/csv"
  elseif scenario == "bulk" or scenario == "rpc" then
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "application/json"
  end
end

function request()
  if scenario == "s1" then
    return wrk.format(nil, base .. "/products?select=*,brands(*)&order=id&limit=20&offset=" .. 20 * math.random(0, 9))
  elseif scenario == "s2" then
    return wrk.format(nil, base .. "/products?select=*,brands(*)&id=eq." .. math.random(1, 2000))
  elseif scenario == "s3" then
    return wrk.format(nil, base .. "/products?select=id,name,price,image_path,brands!inner(name,slug)"
      .. "&brands.slug=eq.brand-" .. math.random(1, 50) .. "&order=id&limit=20")
  elseif scenario == "s3u" then
    -- S3 unordered, filtered on a to-one embed's column other than its key.
    return wrk.format(nil, base .. "/products?select=id,name,price,brands!inner(name)"
      .. "&brands.name=eq.Brand%20" .. math.random(1, 50) .. "&is_active=eq.true&limit=20")
  elseif scenario == "csv" then
    -- 100 rows of scalar columns as CSV.
    return wrk.format(nil, base .. "/products?select=id,name,slug,price,brand_id,created_at&order=id&limit=100&offset="
      .. 100 * math.random(0, 18))
  elseif scenario == "bulk" then
    -- 100 rows in one body, return=minimal (PostgREST's default).
    local rows = {}
    for i = 1, 100 do
      counter = counter + 1
      rows[i] = string.format('{"name":"Bulk","slug":"%s-%d-%d-%d","price":9.99,"brand_id":%d}',
        prefix, tid or 0, counter, math.random(0, 1e9), math.random(1, 50))
    end
    return wrk.format(nil, base .. "/products", nil, "[" .. table.concat(rows, ",") .. "]")
  elseif scenario == "rpc" then
    local low = math.random(0, 980)
    return wrk.format(nil, base .. "/rpc/products_between?order=id&limit=20", nil,
      string.format('{"low":%d,"high":%d}', low, low + 20))
  else
    counter = counter + 1
    local body = string.format(
      '{"name":"Bench","slug":"%s-%d-%d-%d","price":9.99,"brand_id":%d}',
      prefix, tid or 0, counter, math.random(0, 1e9), math.random(1, 50))
    return wrk.format(nil, base .. "/products", nil, body)
  end
end

function done(summary, latency, requests)
  -- One machine-readable line: rps, p50 ms, p99 ms, non-2xx, socket errors,
  -- requests.
  local errors = summary.errors
  io.write(string.format("RESULT %.1f %.3f %.3f %d %d %d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    errors.status, errors.connect + errors.read + errors.write + errors.timeout,
    summary.requests))
end
