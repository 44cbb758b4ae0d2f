-- S7: each request uploads a new 200 KB object (no upsert), named after the
-- thread and a counter so that no two requests collide.
local counter = 0
local threads = 0

function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end

function init(args)
  wrk.method = "POST"
  wrk.body = string.rep("x", 200 * 1024)
  wrk.headers["Content-Type"] = "image/png"
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("STAFF_TOKEN")
  math.randomseed(os.time() * 100 + id)
end

function request()
  counter = counter + 1
  local path = string.format("/storage/v1/object/store-products/products/bench-%d-%d-%d.png", os.time(), id, counter)
  return wrk.format(nil, path)
end
