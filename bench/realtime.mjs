// The client side of bench/realtime.sh: opens sockets to /realtime/v1
// (serializer 1.0.0, 100 channels per socket, Realtime's default cap), joins
// SUBSCRIBERS channels each bound to INSERTs on public.bench_changes, waits
// until every one is "Subscribed to PostgreSQL", runs the writer command,
// then counts deliveries until all arrived (or none came for 5 s).
// Latency is arrival minus the change's commit_timestamp (same machine,
// millisecond precision). Prints one JSON line.
//
//   node --experimental-websocket bench/realtime.mjs <ws url> <subscribers> -- <writer...>
import { spawn } from 'node:child_process'

const [, , url, count, separator, ...writer] = process.argv
if (!url || !count || separator !== '--' || writer.length === 0) {
  console.error('usage: realtime.mjs <ws url> <subscribers> -- <writer command...>')
  process.exit(2)
}
const subscribers = Number(count)
const perSocket = 100
const histogram = new Uint32Array(60_001)
let deliveries = 0
let ready = 0
let last = 0
const sockets = []

function join(ws, first, n) {
  for (let i = first; i < first + n; i++) {
    ws.send(JSON.stringify({
      topic: `realtime:bench-${i}`,
      event: 'phx_join',
      ref: String(i),
      join_ref: String(i),
      payload: {
        config: {
          broadcast: { self: false, ack: false },
          presence: { key: '', enabled: false },
          postgres_changes: [{ event: 'INSERT', schema: 'public', table: 'bench_changes' }],
          private: false,
        },
      },
    }))
  }
}

for (let first = 0; first < subscribers; first += perSocket) {
  const n = Math.min(perSocket, subscribers - first)
  const ws = new WebSocket(url)
  sockets.push(ws)
  ws.onopen = () => join(ws, first, n)
  ws.onclose = (event) => console.error(`socket closed: ${event.code} ${event.reason}`)
  ws.onmessage = (message) => {
    const { event, payload } = JSON.parse(message.data)
    if (event === 'postgres_changes') {
      const now = Date.now()
      const latency = Math.max(0, now - Date.parse(payload.data.commit_timestamp))
      histogram[Math.min(latency, 60_000)]++
      deliveries++
      last = now
    } else if (event === 'system' && payload.extension === 'postgres_changes') {
      if (payload.status !== 'ok') {
        console.error(`refused: ${payload.message}`)
        process.exit(1)
      }
      ready++
    }
  }
}
const heartbeat = setInterval(() => {
  for (const ws of sockets) {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: 'hb' }))
  }
}, 20_000)

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
for (let i = 0; ready < subscribers; i++) {
  if (i > 1200) {
    console.error(`only ${ready} of ${subscribers} subscribed`)
    process.exit(1)
  }
  await sleep(50)
}

const start = Date.now()
const output = await new Promise((resolve, reject) => {
  const child = spawn(writer[0], writer.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] })
  let text = ''
  child.stdout.on('data', (chunk) => { text += chunk })
  child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`writer exited ${code}`))))
})
const changes = Number(output.match(/actually processed: (\d+)/)?.[1] ?? 0)
const writerTps = Number(output.match(/tps = ([\d.]+)/)?.[1] ?? 0)
const expected = changes * subscribers
while (deliveries < expected && Date.now() - Math.max(last, start) < 5000) await sleep(20)
clearInterval(heartbeat)

function percentile(p) {
  const wanted = Math.ceil(deliveries * p)
  let seen = 0
  for (let ms = 0; ms < histogram.length; ms++) {
    seen += histogram[ms]
    if (seen >= wanted) return ms
  }
  return null
}
const seconds = (last - start) / 1000
console.log(JSON.stringify({
  subscribers,
  changes,
  writer_tps: writerTps,
  delivered: deliveries,
  expected,
  changes_per_s: seconds > 0 ? Math.round(deliveries / subscribers / seconds) : 0,
  deliveries_per_s: seconds > 0 ? Math.round(deliveries / seconds) : 0,
  p50_ms: percentile(0.5),
  p99_ms: percentile(0.99),
}))
for (const ws of sockets) ws.close()
process.exit(0)
