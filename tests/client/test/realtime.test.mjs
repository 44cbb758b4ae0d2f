// Realtime with the real supabase-js (realtime-js) against /realtime/v1:
// broadcast (self, ack, two clients, serializers 1.0.0 and 2.0.0 together,
// the REST fallback of send(), httpSend()), presence (track, sync, leave, the
// per-channel limit), private
// channels under RLS (tests/client/fixtures/realtime.sql), broadcast from the
// database (realtime.send, realtime.send_binary), token refresh and expiry, and two gateways on one
// database.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createClient } from '@supabase/supabase-js'
import { url, anonKey, serviceKey, publishableKey } from '../lib/env.mjs'

const run = Date.now().toString(36)
const clients = []

function realtimeClient({ key = anonKey, vsn, at = url } = {}) {
  const options = { auth: { persistSession: false, autoRefreshToken: false } }
  if (vsn) options.realtime = { vsn }
  const supabase = createClient(at, key, options)
  clients.push(supabase)
  return supabase
}

after(async () => {
  for (const supabase of clients) await supabase.removeAllChannels()
})

// Subscribes; resolves on SUBSCRIBED, rejects with the error otherwise.
function subscribed(channel) {
  return new Promise((resolve, reject) => {
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED') resolve(channel)
      else if (status !== 'CLOSED') reject(Object.assign(error ?? new Error(status), { status }))
    })
  })
}

// The next payload `channel` gets for a broadcast `event`.
function nextBroadcast(channel, event) {
  return new Promise((resolve) => channel.on('broadcast', { event }, ({ payload }) => resolve(payload)))
}

function within(ms, promise, what) {
  return Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)),
  ])
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

test('a broadcast with self and ack comes back to its sender and send() resolves ok', async () => {
  const channel = realtimeClient().channel(`self-${run}`, { config: { broadcast: { self: true, ack: true } } })
  const echoed = nextBroadcast(channel, 'ping')
  await subscribed(channel)
  assert.equal(await channel.send({ type: 'broadcast', event: 'ping', payload: { n: 1 } }), 'ok')
  assert.deepEqual(await within(3000, echoed, 'echo'), { n: 1 })
})

for (const [a, b] of [['1.0.0', '2.0.0'], ['2.0.0', '1.0.0'], ['2.0.0', '2.0.0'], ['1.0.0', '1.0.0']]) {
  test(`a ${a} client and a ${b} client on one channel exchange broadcasts`, async () => {
    const topic = `pair-${a}-${b}-${run}`
    const first = realtimeClient({ vsn: a }).channel(topic)
    const second = realtimeClient({ vsn: b, key: publishableKey }).channel(topic)
    const toSecond = nextBroadcast(second, 'hello')
    const toFirst = nextBroadcast(first, 'reply')
    await Promise.all([subscribed(first), subscribed(second)])
    await first.send({ type: 'broadcast', event: 'hello', payload: { from: a, text: 'ñandú 🐦' } })
    assert.deepEqual(await within(3000, toSecond, 'hello'), { from: a, text: 'ñandú 🐦' })
    await second.send({ type: 'broadcast', event: 'reply', payload: { from: b } })
    assert.deepEqual(await within(3000, toFirst, 'reply'), { from: b })
  })
}

test('send() on a channel not joined yet goes through the REST broadcast', async () => {
  const topic = `rest-${run}`
  const listener = realtimeClient().channel(topic)
  const got = nextBroadcast(listener, 'via-rest')
  await subscribed(listener)
  const sender = realtimeClient().channel(topic)
  const warn = console.warn
  console.warn = () => {}
  try {
    assert.equal(await sender.send({ type: 'broadcast', event: 'via-rest', payload: { ok: true } }), 'ok')
  } finally {
    console.warn = warn
  }
  assert.deepEqual(await within(3000, got, 'REST broadcast'), { ok: true })
})

test('httpSend() delivers one message through the single-message endpoint', async () => {
  const topic = `http-send-${run}`
  const listener = realtimeClient().channel(topic)
  const got = nextBroadcast(listener, 'direct')
  await subscribed(listener)
  const result = await realtimeClient().channel(topic).httpSend('direct', { via: 'httpSend' })
  assert.deepEqual(result, { success: true })
  assert.deepEqual(await within(3000, got, 'httpSend message'), { via: 'httpSend' })
})

test('presence tracks, syncs both members, and tells the other when one leaves', async () => {
  const topic = `presence-${run}`
  const ana = realtimeClient().channel(topic, { config: { presence: { key: 'ana' } } })
  const bo = realtimeClient({ vsn: '1.0.0' }).channel(topic, { config: { presence: { key: 'bo' } } })
  const bothSynced = new Promise((resolve) => {
    bo.on('presence', { event: 'sync' }, () => {
      const state = bo.presenceState()
      if (state.ana && state.bo) resolve(state)
    })
  })
  const left = new Promise((resolve) => bo.on('presence', { event: 'leave' }, ({ key, leftPresences }) => resolve({ key, leftPresences })))
  ana.on('presence', { event: 'sync' }, () => {})
  await Promise.all([subscribed(ana), subscribed(bo)])
  assert.equal(await ana.track({ name: 'Ana' }), 'ok')
  assert.equal(await bo.track({ name: 'Bo' }), 'ok')
  const state = await within(3000, bothSynced, 'sync with both')
  assert.equal(state.ana[0].name, 'Ana')
  assert.equal(state.bo[0].name, 'Bo')
  await ana.unsubscribe()
  const leave = await within(3000, left, 'leave')
  assert.equal(leave.key, 'ana')
  assert.equal(leave.leftPresences[0].name, 'Ana')
})

for (const vsn of ['1.0.0', '2.0.0']) {
  test(`a ${vsn} channel that tracks a sixth time within 30 s is closed with Realtime's presence error`, async () => {
    const channel = realtimeClient({ vsn }).channel(`presence-limit-${vsn}-${run}`, { config: { presence: { key: 'busy' } } })
    const system = new Promise((resolve) => channel.on('system', {}, (payload) => payload.status === 'error' && resolve(payload)))
    await subscribed(channel)
    for (let n = 1; n <= 5; n++) assert.equal(await channel.track({ n }), 'ok', `track ${n}`)
    channel.track({ n: 6 })
    const error = await within(3000, system, 'the system error')
    assert.equal(error.message, 'Client presence rate limit exceeded')
    for (let i = 0; i < 30 && channel.state !== 'closed'; i++) await sleep(100)
    assert.equal(channel.state, 'closed')
  })
}

async function signedIn(prefix) {
  const admin = createClient(url, serviceKey, { auth: { persistSession: false, autoRefreshToken: false } })
  const email = `${prefix}-${run}@example.com`
  const password = 'realtime-pw-123'
  const { error } = await admin.auth.admin.createUser({ email, password, email_confirm: true })
  assert.equal(error, null)
  const supabase = realtimeClient()
  const { error: signInError } = await supabase.auth.signInWithPassword({ email, password })
  assert.equal(signInError, null)
  return supabase
}

test('a private channel refuses anon and admits a signed-in user its SELECT policy lets read', async () => {
  const topic = `client-private-${run}`
  const refused = await subscribed(realtimeClient().channel(topic, { config: { private: true } })).then(
    () => null,
    (error) => error,
  )
  assert.ok(refused, 'anon was admitted')
  assert.equal(refused.status, 'CHANNEL_ERROR')
  assert.match(refused.message, new RegExp(`^Unauthorized: You do not have permissions to read from this Channel topic: ${topic}$`))

  const reader = await signedIn('reader')
  const writer = await signedIn('writer')
  const readerChannel = reader.channel(topic, { config: { private: true } })
  const got = nextBroadcast(readerChannel, 'note')
  await subscribed(readerChannel)
  const writerChannel = writer.channel(topic, { config: { private: true, broadcast: { self: true } } })
  const echoed = nextBroadcast(writerChannel, 'note')
  await subscribed(writerChannel)
  // The reader may not send (no INSERT policy for it): nothing arrives.
  await readerChannel.send({ type: 'broadcast', event: 'note', payload: { by: 'reader' } })
  await sleep(300)
  await writerChannel.send({ type: 'broadcast', event: 'note', payload: { by: 'writer' } })
  assert.deepEqual(await within(3000, got, 'note'), { by: 'writer' })
  assert.deepEqual(await within(3000, echoed, 'echo'), { by: 'writer' })
})

// SQL as the database's owner, as a trigger or a function would run it.
function psql(sql) {
  execFileSync('psql', [process.env.GATEWAY_DATABASE_URL, '-v', 'ON_ERROR_STOP=1', '-qc', sql], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
}

test('realtime.send from the database reaches both serializers, a private message private channels only, and a later join replays it', async () => {
  const topic = `client-private-db-${run}`
  const admin = createClient(url, serviceKey, { auth: { persistSession: false, autoRefreshToken: false } })
  const email = `db-reader-${run}@example.com`
  const password = 'realtime-pw-123'
  assert.equal((await admin.auth.admin.createUser({ email, password, email_confirm: true })).error, null)
  const members = []
  for (const vsn of ['1.0.0', '2.0.0']) {
    const supabase = realtimeClient({ vsn })
    assert.equal((await supabase.auth.signInWithPassword({ email, password })).error, null)
    const channel = supabase.channel(topic, { config: { private: true } })
    members.push(nextBroadcast(channel, 'from-db'))
    await subscribed(channel)
  }
  const outsider = realtimeClient().channel(topic)
  let leaked = null
  outsider.on('broadcast', { event: 'from-db' }, ({ payload }) => (leaked = payload))
  await subscribed(outsider)
  psql(`select realtime.send('{"n": 1, "text": "ñandú"}'::jsonb, 'from-db', '${topic}', true)`)
  for (const got of members) assert.deepEqual(await within(3000, got, 'from-db'), { n: 1, text: 'ñandú' })
  await sleep(300)
  assert.equal(leaked, null, 'a private message reached a public channel of the same name')

  // A later join asks for what it missed: config.broadcast.replay.
  const late = realtimeClient({ vsn: '2.0.0' })
  assert.equal((await late.auth.signInWithPassword({ email, password })).error, null)
  const replayChannel = late.channel(topic, { config: { private: true, broadcast: { replay: { since: Date.now() - 60_000, limit: 5 } } } })
  const replayed = new Promise((resolve) => replayChannel.on('broadcast', { event: 'from-db' }, resolve))
  await subscribed(replayChannel)
  const message = await within(3000, replayed, 'replayed message')
  assert.deepEqual(message.payload, { n: 1, text: 'ñandú' })
  assert.equal(message.meta.replayed, true)
  assert.equal(typeof message.meta.id, 'string')
})

test('realtime.send_binary from the database reaches a 2.0.0 client as bytes and no 1.0.0 client', async () => {
  const topic = `client-binary-db-${run}`
  const v2 = realtimeClient({ vsn: '2.0.0' }).channel(topic)
  const got = nextBroadcast(v2, 'bytes')
  await subscribed(v2)
  const v1 = realtimeClient({ vsn: '1.0.0' }).channel(topic)
  let leaked = null
  v1.on('broadcast', { event: 'bytes' }, ({ payload }) => (leaked = payload))
  await subscribed(v1)
  psql(`select realtime.send_binary('\\x00ff01'::bytea, 'bytes', '${topic}', false)`)
  const payload = await within(3000, got, 'bytes')
  assert.ok(payload instanceof ArrayBuffer, 'a binary payload')
  assert.deepEqual([...new Uint8Array(payload)], [0, 255, 1])
  await sleep(300)
  assert.equal(leaked, null, 'a 1.0.0 client was sent bytes')
})

// A token signed with the gateway's JWT secret, as GoTrue would mint it.
function token(claims) {
  const secret = readFileSync(join(process.env.GATEWAY_DATA_DIR, 'jwt_secret'), 'utf8').trim()
  const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`
}

test('setAuth with a fresh token keeps the channel; an expired one closes it as Realtime does', async () => {
  const now = Math.floor(Date.now() / 1000)
  const supabase = realtimeClient()
  const channel = supabase.channel(`auth-${run}`, { config: { broadcast: { self: true } } })
  const system = new Promise((resolve) => channel.on('system', {}, (payload) => payload.status === 'error' && resolve(payload)))
  await subscribed(channel)
  await supabase.realtime.setAuth(token({ sub: 'u1', role: 'authenticated', exp: now + 600 }))
  const echoed = nextBroadcast(channel, 'still')
  await channel.send({ type: 'broadcast', event: 'still', payload: {} })
  assert.deepEqual(await within(3000, echoed, 'broadcast after the refresh'), {})

  await supabase.realtime.setAuth(token({ sub: 'u1', role: 'authenticated', exp: now - 5 }))
  const error = await within(3000, system, 'the system error')
  assert.match(error.message, /^Token has expired \d+ seconds ago$/)
  // Then `phx_close`: the channel is closed.
  for (let i = 0; i < 30 && channel.state !== 'closed'; i++) await sleep(100)
  assert.equal(channel.state, 'closed')
})

// A second `gateway serve` on the same database and data folder.
async function startSecondGateway() {
  const database = process.env.GATEWAY_DATABASE_URL.replace(/user=[^&]*/, 'user=authenticator')
  const child = spawn(process.env.GATEWAY_BIN, ['serve', '--data-dir', process.env.GATEWAY_DATA_DIR, '--listen', '127.0.0.1:0'], {
    env: { ...process.env, DATABASE_URL: database },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const address = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the second gateway did not start:\n${output}`)), 60_000)
    const read = (chunk) => {
      output += chunk
      const found = output.match(/API URL:\s+(\S+)/)
      if (found) {
        clearTimeout(timer)
        resolve(found[1])
      }
    }
    child.stdout.on('data', read)
    child.stderr.on('data', (chunk) => { output += chunk })
    child.on('exit', (code) => reject(new Error(`the second gateway exited (${code}):\n${output}`)))
  })
  return {
    url: address,
    stop: () => new Promise((resolve) => {
      child.removeAllListeners('exit')
      child.on('exit', resolve)
      child.kill('SIGINT')
    }),
  }
}

test('two gateways on one database: broadcasts and presence reach the clients of both, once', async () => {
  const second = await startSecondGateway()
  try {
    const topic = `two-gateways-${run}`
    const here = realtimeClient().channel(topic, { config: { presence: { key: 'here' } } })
    const there = realtimeClient({ at: second.url, vsn: '1.0.0' }).channel(topic, { config: { presence: { key: 'there' } } })
    const received = []
    there.on('broadcast', { event: 'hop' }, ({ payload }) => received.push(payload))
    const synced = new Promise((resolve) => there.on('presence', { event: 'sync' }, () => there.presenceState().here && resolve()))
    await Promise.all([subscribed(here), subscribed(there)])
    // Give the second gateway's bus a moment to listen.
    await sleep(500)
    await here.track({ at: 'first gateway' })
    await within(3000, synced, 'presence from the other gateway')
    await here.send({ type: 'broadcast', event: 'hop', payload: { n: 1 } })
    await sleep(1000)
    assert.deepEqual(received, [{ n: 1 }])
  } finally {
    for (const supabase of clients.splice(0)) await supabase.removeAllChannels()
    await second.stop()
  }
})
