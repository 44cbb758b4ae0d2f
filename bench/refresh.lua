-- S6: refresh-token grants. One connection per thread, each rotating its own
-- session's token: every response's refresh_token is the next request's.
local tokens = {}
for token in string.gmatch(os.getenv("REFRESH_TOKENS") or "", "[^,]+") do
  table.insert(tokens, token)
end
local next_thread = 0

function setup(thread)
  next_thread = next_thread + 1
  thread:set("token", tokens[next_thread])
end

wrk.method = "POST"
wrk.headers["apikey"] = os.getenv("ANON_KEY")
wrk.headers["authorization"] = "Bearer " .. os.getenv("ANON_KEY")
wrk.headers["content-type"] = "application/json;charset=UTF-8"
wrk.headers["x-supabase-api-version"] = "2024-01-01"

function request()
  return wrk.format(nil, "/auth/v1/token?grant_type=refresh_token", nil,
    '{"refresh_token":"' .. token .. '"}')
end

function response(status, headers, body)
  local rotated = body:match('"refresh_token":"([^"]+)"')
  if rotated then token = rotated end
end
