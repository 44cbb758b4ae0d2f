-- Image transformations: each request asks for a 400 px wide WebP of the same
-- 2 MP JPEG in a box of another height (313 to 2500 px, `resize=contain`):
-- the answer is always 400 x 313, but every request is a variant not made
-- before, so neither the memory cache nor the variants kept in the store
-- answer it and each one is transformed.
local counter = 0
local threads = 0

function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end

function init(args)
  wrk.headers["Accept"] = "image/webp,*/*"
end

function request()
  counter = counter + 1
  local height = 313 + (id * 1097 + counter) % 2188
  return wrk.format("GET", wrk.path .. "&height=" .. height .. "&resize=contain")
end
