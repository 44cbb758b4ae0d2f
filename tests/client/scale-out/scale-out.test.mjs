// Two gateways behind nginx, on one PostgreSQL and one S3 server (s3s-fs),
// driven with the unmodified supabase-js and tus-js-client: what one gateway
// does, the other sees, and a gateway killed mid-load costs no request but
// those in flight on it. gateway/tests/scale_out.rs starts the parts with
// scripts/scale-out.sh and runs this file; it is not one of test/'s suites.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { deflateSync } from 'node:zlib'
import { readFileSync, writeFileSync } from 'node:fs'
import { createClient } from '@supabase/supabase-js'
import * as tus from 'tus-js-client'

const balanced = required('SCALE_OUT_URL')
const gateways = [required('GATEWAY_1_URL'), required('GATEWAY_2_URL')]
const anonKey = required('ANON_KEY')
const serviceKey = required('SERVICE_ROLE_KEY')
const run = Date.now().toString(36)
const MiB = 1024 * 1024
const clients = []

after(async () => {
  for (const client of clients) await client.removeAllChannels()
})

function client(url, key = anonKey, headers = {}) {
  const made = createClient(url, key, {
    auth: { persistSession: false, autoRefreshToken: false },
    global: { headers },
  })
  clients.push(made)
  return made
}

const admin = client(balanced, serviceKey)

test('a session signed in on one gateway is refreshed on the other', async () => {
  const email = `scale-${run}@tienda.example`
  const password = 'una contraseña larga'
  const { error: created } = await admin.auth.admin.createUser({ email, password, email_confirm: true })
  assert.equal(created, null)
  const one = client(gateways[0])
  const other = client(gateways[1])
  const { data: signedIn, error } = await one.auth.signInWithPassword({ email, password })
  assert.equal(error, null)
  const { data: refreshed, error: refreshError } = await other.auth.refreshSession({
    refresh_token: signedIn.session.refresh_token,
  })
  assert.equal(refreshError, null)
  assert.notEqual(refreshed.session.refresh_token, signedIn.session.refresh_token)
  // The refreshed session is good through the load balancer.
  const { data: user, error: userError } = await client(balanced).auth.getUser(refreshed.session.access_token)
  assert.equal(userError, null)
  assert.equal(user.user.email, email)
})

test('auth rate limits are counted once for both gateways', async () => {
  // A client address of its own, named by X-Forwarded-For (the gateways
  // trust the loopback, where nginx is); AUTH_RATE_LIMIT_BURST is 10.
  const address = `198.51.100.${1 + (Date.now() % 250)}`
  const headers = { 'x-forwarded-for': address }
  const attempt = (url) =>
    client(url, anonKey, headers).auth.signInWithPassword({ email: `nobody-${run}@tienda.example`, password: 'wrong password' })
  for (let n = 0; n < 10; n++) {
    const { error } = await attempt(gateways[n % 2])
    assert.equal(error?.status, 400, `attempt ${n}: ${error?.message}`)
  }
  for (const url of [...gateways, balanced]) {
    const { error } = await attempt(url)
    assert.equal(error?.status, 429, `${url}: ${error?.message}`)
    assert.equal(error.code, 'over_request_rate_limit')
  }
})

test('a file uploaded through one gateway is downloaded and transformed through the other', async () => {
  const bucket = `scale-${run}`
  const { error } = await admin.storage.createBucket(bucket, { public: false })
  assert.equal(error, null)
  const image = png(32, 24)
  const { error: uploaded } = await client(gateways[0], serviceKey)
    .storage.from(bucket)
    .upload('photos/gradient.png', image, { contentType: 'image/png' })
  assert.equal(uploaded, null)
  const other = client(gateways[1], serviceKey).storage.from(bucket)
  const { data: whole, error: downloadError } = await other.download('photos/gradient.png')
  assert.equal(downloadError, null)
  assert.ok(Buffer.from(await whole.arrayBuffer()).equals(image), 'the bytes differ')
  const { data: small, error: transformError } = await other.download('photos/gradient.png', {
    transform: { width: 8, height: 6, resize: 'fill', format: 'origin' },
  })
  assert.equal(transformError, null)
  const bytes = Buffer.from(await small.arrayBuffer())
  assert.equal(bytes.subarray(1, 4).toString(), 'PNG')
  assert.deepEqual([bytes.readUInt32BE(16), bytes.readUInt32BE(20)], [8, 6])
})

test('a resumable upload started on one gateway ends on the other', async () => {
  const bucket = `resumable-${run}`
  assert.equal((await admin.storage.createBucket(bucket)).error, null)
  const file = randomBytes(13 * MiB)
  const headers = { authorization: `Bearer ${serviceKey}`, apikey: serviceKey }
  const metadata = { bucketName: bucket, objectName: 'big.bin', contentType: 'application/octet-stream' }
  // The first 6 MiB chunk on the first gateway, then stop.
  const started = await new Promise((resolve, reject) => {
    const upload = new tus.Upload(file, {
      endpoint: `${gateways[0]}/storage/v1/upload/resumable`,
      retryDelays: [],
      headers,
      chunkSize: 6 * MiB,
      metadata,
      onError: reject,
      onSuccess: () => reject(new Error('the upload was not stopped')),
      onChunkComplete: () => upload.abort().then(() => resolve(upload), reject),
    })
    upload.start()
  })
  const path = new URL(started.url).pathname
  const probe = await fetch(`${gateways[1]}${path}`, { method: 'HEAD', headers: { ...headers, 'tus-resumable': '1.0.0' } })
  assert.equal(probe.status, 200)
  assert.equal(Number(probe.headers.get('upload-offset')), 6 * MiB)
  await new Promise((resolve, reject) => {
    const upload = new tus.Upload(file, {
      uploadUrl: `${gateways[1]}${path}`,
      retryDelays: [],
      headers,
      chunkSize: 6 * MiB,
      onError: reject,
      onSuccess: resolve,
    })
    upload.start()
  })
  const { data, error } = await admin.storage.from(bucket).download('big.bin')
  assert.equal(error, null)
  assert.ok(Buffer.from(await data.arrayBuffer()).equals(file), 'the stored bytes differ')
})

test('a subscriber on one gateway sees a row written through the other', async () => {
  const name = `producto-${run}`
  const { error: category } = await admin.from('product_categories').upsert({ category: 'Escalado' })
  assert.equal(category, null)
  const channel = client(gateways[0], serviceKey).channel(`scale-${run}`)
  const seen = new Promise((resolve) => {
    channel.on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'products', filter: `name=eq.${name}` }, resolve)
  })
  // The server's word that the binding is in place ("Subscribed to
  // PostgreSQL"), which comes after the join's SUBSCRIBED.
  const watching = new Promise((resolve, reject) => {
    channel.on('system', {}, (payload) => {
      if (payload.extension !== 'postgres_changes') return
      if (payload.status === 'ok') resolve()
      else reject(new Error(payload.message))
    })
    channel.subscribe((status, error) => {
      if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(error ?? new Error(status))
    })
  })
  await within(watching, 10_000, 'the subscription was not confirmed')
  const { error } = await client(gateways[1], serviceKey)
    .from('products')
    .insert({ name, price: 10, quantity: 1, category: 'Escalado' })
  assert.equal(error, null)
  const change = await within(seen, 10_000, 'the change did not reach the other gateway')
  assert.equal(change.new.name, name)
})

test('after a migration both gateways serve the new table', async () => {
  const root = required('GATEWAY_SQL_ROOT')
  const table = `scale_out_probe`
  const read = (url) => client(url, serviceKey).from(table).select('id, note').limit(1)
  for (const url of gateways) assert.equal((await read(url)).error?.code, 'PGRST205', url)
  writeFileSync(
    `${root}/sql/900_scale_out_probe.sql`,
    `create table public.${table} (id bigint generated always as identity primary key, note text not null);
     grant select, insert on public.${table} to anon, authenticated, service_role;\n`,
  )
  const output = execFileSync(required('GATEWAY_BIN'), ['migrate', '--sql-root', root], {
    env: { ...process.env, DATABASE_URL: required('DATABASE_ADMIN_URL') },
  })
  assert.match(output.toString(), /applied sql\/900_scale_out_probe\.sql/)
  for (const url of gateways) {
    const deadline = Date.now() + 10_000
    let last
    while (Date.now() < deadline) {
      last = await read(url)
      if (!last.error) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.equal(last.error, null, `${url} did not reload its schema`)
  }
})

// The shop's listing and a write, through nginx, from 8 callers at once,
// until `during` (given the load's requests, done and in flight) resolves.
async function load(during) {
  const shop = client(balanced)
  const calls = {
    list: () =>
      shop.from('products').select('*, brands(id, name, description)').eq('status', true)
        .order('price', { ascending: false }).limit(12).retry(false),
    write: () => shop.from('scale_out_probe').insert({ note: 'load' }).retry(false),
  }
  const done = []
  const inFlight = new Set()
  let stopping = false
  let id = 0
  const worker = async (n) => {
    while (!stopping) {
      const kind = (id + n) % 3 === 0 ? 'write' : 'list'
      const request = { id: id++, kind, start: performance.now() }
      inFlight.add(request)
      const { error, status } = await calls[kind]()
      inFlight.delete(request)
      done.push({ ...request, status, error })
    }
  }
  const workers = Array.from({ length: 8 }, (_, n) => worker(n))
  const result = await during({ done, inFlight })
  stopping = true
  await Promise.all(workers)
  return { done, ...result }
}

const pidOf = (n) => Number(readFileSync(`${required('SCALE_OUT_DIR')}/gateway-${n}.pid`, 'utf8'))

test('a gateway stopped with SIGTERM mid-load fails no request', async () => {
  const { done, atStop } = await load(async ({ inFlight }) => {
    await sleep(1500)
    const pid = pidOf(2)
    const atStop = inFlight.size
    process.kill(pid, 'SIGTERM')
    while (!gone(pid)) await sleep(5)
    await sleep(1000)
    return { atStop }
  })
  // Its replacement, on the same address, for the next test: nginx tries
  // it again once fail_timeout has passed.
  replacement = await startGateway(new URL(gateways[1]).host, 'gateway-2-again')
  await sleep(5500)
  const failed = done.filter((r) => r.error)
  assert.ok(atStop > 0 && done.length > 40, `${done.length} requests`)
  assert.deepEqual(failed.map((r) => `${r.kind} ${r.status} ${r.error.message.slice(0, 40)}`), [])
})

let replacement
after(() => replacement?.stop())

test('a gateway killed mid-load fails no request but those in flight on it', async () => {
  const { done, deadAt, atKill } = await load(async ({ inFlight }) => {
    await sleep(1500)
    const pid = pidOf(1)
    const atKill = inFlight.size
    process.kill(pid, 'SIGKILL')
    while (!gone(pid)) await sleep(1)
    // nginx learns it from the first request that fails on it (a connection
    // refused, or reset), and leaves the gateway out from then on. Until
    // then it may still hand a request to a connection it kept open to it.
    const errorLog = `${required('SCALE_OUT_DIR')}/nginx/error.log`
    const marks = (text) => text.split('temporarily disabled').length
    const before = marks(readFileSync(errorLog, 'utf8'))
    for (let n = 0; n < 2000 && marks(readFileSync(errorLog, 'utf8')) === before; n++) await sleep(1)
    const deadAt = performance.now()
    await sleep(2500)
    return { deadAt, atKill }
  })
  const failed = done.filter((r) => r.error)
  const before = done.filter((r) => r.start < deadAt).length
  const after = done.filter((r) => r.start >= deadAt)
  assert.ok(atKill > 0 && before > 20 && after.length > 20, `${before} requests before the kill, ${after.length} after`)
  for (const request of failed) {
    assert.ok(request.start < deadAt, `request ${request.id} (${request.kind}) failed with ${request.status} after nginx knew the gateway was gone`)
    // nginx resends reads to the other gateway; only a write that reached
    // the killed one may fail (it may have been carried out).
    assert.equal(request.kind, 'write', `a read failed: ${request.status} ${request.error?.message}`)
    assert.equal(request.status, 502)
  }
})

// `gateway serve` on `address` with the environment the gateways of
// scripts/scale-out.sh have.
async function startGateway(address, name) {
  // No admin URL: the script's gateways migrate nothing either.
  const { DATABASE_ADMIN_URL: _, ...shared } = process.env
  const child = spawn(required('GATEWAY_BIN'), ['serve'], {
    env: { ...shared, GATEWAY_LISTEN: address, GATEWAY_DATA_DIR: `${required('SCALE_OUT_DIR')}/${name}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stderr.on('data', (chunk) => { output += chunk })
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output}`)), 60_000)
    child.stdout.on('data', (chunk) => {
      output += chunk
      if (output.includes('service_role key:')) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.on('exit', (code) => reject(new Error(`${name} exited (${code}):\n${output}`)))
  })
  for (let n = 0; n < 100; n++) {
    if (await fetch(`http://${address}/health`).then((r) => r.ok, () => false)) break
    await sleep(50)
  }
  return {
    stop: () => new Promise((resolve) => {
      child.removeAllListeners('exit')
      child.on('exit', resolve)
      child.kill('SIGINT')
    }),
  }
}

// Whether the process has ended (a zombie not yet reaped counts as ended).
function gone(pid) {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z')
  } catch {
    return true
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function within(promise, ms, message) {
  let timer
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms))),
  ])
}

// A width x height RGB gradient as PNG, made here so that the test needs no
// image library.
function png(width, height) {
  const rows = []
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3)
    for (let x = 0; x < width; x++) row.set([x * 8, y * 10, 128], 1 + x * 3)
    rows.push(row)
  }
  const chunk = (type, data) => {
    const head = Buffer.alloc(8)
    head.writeUInt32BE(data.length)
    head.write(type, 4)
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])))
    return Buffer.concat([head, data, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

function crc32(bytes) {
  let crc = 0xffffffff
  for (const byte of bytes) {
    crc ^= byte
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1))
  }
  return (crc ^ 0xffffffff) >>> 0
}

function required(name) {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set: gateway/tests/scale_out.rs runs this file`)
  return value
}
