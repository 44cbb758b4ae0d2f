-- S5: password sign-ins, spread over the seeded users (bench/auth.sh).
local users = tonumber(os.getenv("BENCH_USERS") or "8")
local n = 0
wrk.method = "POST"
wrk.headers["apikey"] = os.getenv("ANON_KEY")
wrk.headers["authorization"] = "Bearer " .. os.getenv("ANON_KEY")
wrk.headers["content-type"] = "application/json;charset=UTF-8"
wrk.headers["x-supabase-api-version"] = "2024-01-01"

function request()
  n = n + 1
  local body = string.format('{"email":"bench-%d@example.com","password":"bench-password"}', n % users)
  return wrk.format(nil, "/auth/v1/token?grant_type=password", nil, body)
end
