// Transparent logging reverse proxy for the upstream postgrest-js suite.
//
//   listens on LISTEN_HOST(s):LISTEN_PORT (default 127.0.0.1 and ::1, port 54321)
//   forwards to UPSTREAM_HOST:UPSTREAM_PORT (default 127.0.0.1:54329, the gateway)
//
// The only change made to a request: when it carries no `apikey` header, one is
// added with the value of ANON_KEY (upstream tests send none; the gateway demands
// one). Method, path, query, the other headers (raw, in order, with original
// casing) and the body are forwarded unchanged; status, status text, raw
// response headers and body are returned unchanged.
//
// Every exchange is appended as one JSON line to LOG_FILE, stamped with the test
// currently running (the jest setup file POSTs it to /__harness/test before each
// test; that path is answered here and never forwarded).
'use strict'
const http = require('http')
const fs = require('fs')

const LISTEN_PORT = Number(process.env.LISTEN_PORT || 54321)
const LISTEN_HOSTS = (process.env.LISTEN_HOSTS || '127.0.0.1,::1').split(',')
const UPSTREAM_HOST = process.env.UPSTREAM_HOST || '127.0.0.1'
const UPSTREAM_PORT = Number(process.env.UPSTREAM_PORT || 54329)
const ANON_KEY = process.env.ANON_KEY || ''
const LOG_FILE = process.env.LOG_FILE || 'logs/exchanges.jsonl'

let current = { file: null, test: null }
let seq = 0
const log = fs.createWriteStream(LOG_FILE, { flags: 'a' })

function bodyText(buf, headers) {
  if (!buf.length) return ''
  const s = buf.toString('utf8')
  // Keep text verbatim; mark binary so the log stays readable.
  if (/[\x00-\x08\x0e-\x1f]/.test(s) && !/json|text|csv|xml/.test(String(headers['content-type'] || ''))) {
    return { base64: buf.toString('base64') }
  }
  return s
}

function handler(req, res) {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const reqBody = Buffer.concat(chunks)
    if (req.url === '/__harness/test' && req.method === 'POST') {
      try {
        current = JSON.parse(reqBody.toString('utf8'))
      } catch (_) {
        current = { file: null, test: String(reqBody) }
      }
      res.writeHead(204)
      res.end()
      return
    }
    const id = ++seq
    const started = Date.now()
    const stamp = { file: current.file, test: current.test }
    const raw = req.rawHeaders.slice()
    let added = false
    if (!('apikey' in req.headers) && ANON_KEY) {
      raw.push('apikey', ANON_KEY)
      added = true
    }
    const entry = {
      id,
      time: new Date(started).toISOString(),
      file: stamp.file,
      test: stamp.test,
      method: req.method,
      url: req.url,
      requestHeaders: req.headers,
      apikeyAdded: added,
      requestBody: bodyText(reqBody, req.headers),
    }
    const up = http.request(
      { host: UPSTREAM_HOST, port: UPSTREAM_PORT, method: req.method, path: req.url, headers: raw, setHost: false },
      (upRes) => {
        const out = []
        upRes.on('data', (c) => out.push(c))
        upRes.on('end', () => {
          const resBody = Buffer.concat(out)
          // Transfer-Encoding is hop-by-hop: the body is re-sent whole, so drop it
          // and send Content-Length instead when the gateway streamed it.
          const headers = []
          let chunked = false
          for (let i = 0; i < upRes.rawHeaders.length; i += 2) {
            const k = upRes.rawHeaders[i]
            if (k.toLowerCase() === 'transfer-encoding') {
              chunked = true
              continue
            }
            headers.push(k, upRes.rawHeaders[i + 1])
          }
          if (chunked && !('content-length' in upRes.headers)) headers.push('content-length', String(resBody.length))
          try {
            res.writeHead(upRes.statusCode, upRes.statusMessage, headers)
            res.end(resBody)
          } catch (e) {
            entry.proxyError = String(e)
          }
          entry.status = upRes.statusCode
          entry.responseHeaders = upRes.headers
          entry.responseBody = bodyText(resBody, upRes.headers)
          entry.ms = Date.now() - started
          log.write(JSON.stringify(entry) + '\n')
        })
      }
    )
    up.on('error', (e) => {
      entry.status = 502
      entry.proxyError = String(e)
      entry.ms = Date.now() - started
      log.write(JSON.stringify(entry) + '\n')
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' })
      }
      res.end('harness proxy: upstream error: ' + e.message)
    })
    up.end(reqBody)
  })
}

let listening = 0
for (const host of LISTEN_HOSTS) {
  const server = http.createServer(handler)
  server.keepAliveTimeout = 65000
  server.on('error', (e) => {
    console.error(`proxy: cannot listen on [${host}]:${LISTEN_PORT}: ${e.message}`)
    if (host === LISTEN_HOSTS[0]) process.exit(1)
  })
  server.listen(LISTEN_PORT, host, () => {
    listening++
    console.log(`proxy listening on [${host}]:${LISTEN_PORT} -> ${UPSTREAM_HOST}:${UPSTREAM_PORT}`)
  })
}
process.on('SIGTERM', () => process.exit(0))
process.on('SIGINT', () => process.exit(0))
