// The docker set talks to GoTrue itself: `http://localhost:9999/signup`, with
// no API key. Each listening port here stands for one of its GoTrue services
// and forwards to a gateway, under `/auth/v1` and with that gateway's anon key
// when the request carries no `apikey` (the hosted API gateway's place).
//   ROUTES='9999=127.0.0.1:55999=<anon key>,9998=...' node proxy.js
const http = require('http')

for (const route of process.env.ROUTES.split(',')) {
  const [port, upstream, key] = route.split('=')
  const [host, upstreamPort] = upstream.split(':')
  http
    .createServer((req, res) => {
      const headers = { ...req.headers, host: `${host}:${upstreamPort}` }
      if (!headers.apikey) headers.apikey = key
      const forward = http.request(
        { host, port: upstreamPort, method: req.method, path: `/auth/v1${req.url}`, headers },
        (answer) => {
          res.writeHead(answer.statusCode, answer.headers)
          answer.pipe(res)
        },
      )
      forward.on('error', (e) => {
        res.writeHead(502, { 'content-type': 'text/plain' })
        res.end(String(e))
      })
      req.pipe(forward)
    })
    .listen(Number(port), '127.0.0.1')
}
