-- The ceiling of S7: the same 200 KB POST body to a trivial handler.
wrk.method = "POST"
wrk.body = string.rep("x", 200 * 1024)
wrk.headers["Content-Type"] = "image/png"
