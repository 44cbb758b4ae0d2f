// Realtime's postgres_changes with the real supabase-js (realtime-js) over
// both serializers: what arrives and how realtime-js converts it, RLS (anon
// never sees an inactive product; a signed-in caller after setAuth does),
// filters (every kind joined, negated, with a select list; refused when
// malformed), replication_ready, old records, Realtime's refusal of a table that is not
// published (tests/client/fixtures/realtime_changes.sql), and two gateways
// on one database.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createHmac, randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createClient } from '@supabase/supabase-js'
import { url, anonKey, serviceKey } from '../lib/env.mjs'

const clients = []
const service = createClient(url, serviceKey, { auth: { persistSession: false, autoRefreshToken: false } })
let nextId = Date.now() % 1_000_000_000
// Rows made here are removed at the end: the other files read the same
// fixture (rest.test.mjs counts its products).
const firstId = nextId

function realtimeClient(vsn, at = url) {
  const supabase = createClient(at, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { vsn },
  })
  clients.push(supabase)
  return supabase
}

after(async () => {
  for (const supabase of clients) await supabase.removeAllChannels()
  await service.from('products').delete().gte('id', firstId)
})

// Joins `channel` and waits for the server's word on its postgres_changes:
// resolves on "Subscribed to PostgreSQL", rejects with the reason otherwise.
function watching(channel) {
  const told = new Promise((resolve, reject) => {
    channel.on('system', {}, (payload) => {
      if (payload.extension !== 'postgres_changes') return
      if (payload.status === 'ok') resolve(channel)
      else reject(new Error(payload.message))
    })
    // Settles nothing once told (a socket closed later errs the channel too).
    channel.subscribe((status, error) => {
      if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(error ?? new Error(status))
    })
  })
  return within(5000, told, 'system message')
}

// Collects the change payloads a binding gets.
function collect(channel, filter) {
  const got = []
  channel.on('postgres_changes', filter, (payload) => got.push(payload))
  return got
}

async function waitFor(got, count, what) {
  for (let i = 0; i < 100 && got.length < count; i++) await sleep(50)
  assert.ok(got.length >= count, `expected ${count} ${what}, got ${got.length}`)
}

function within(ms, promise, what) {
  return Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)),
  ])
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function write(query) {
  const { error } = await query
  assert.equal(error, null)
}

// A token signed with the gateway's JWT secret, as GoTrue would mint it.
function token(claims) {
  const secret = readFileSync(join(process.env.GATEWAY_DATA_DIR, 'jwt_secret'), 'utf8').trim()
  const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`
}

const stamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

for (const vsn of ['1.0.0', '2.0.0']) {
  test(`anon gets the active product's insert, never the inactive one's, typed by realtime-js (${vsn})`, async () => {
    const channel = realtimeClient(vsn).channel(`products-${vsn}-${randomUUID()}`)
    const got = collect(channel, { event: 'INSERT', schema: 'public', table: 'products' })
    await watching(channel)
    const hidden = nextId++
    const shown = nextId++
    await write(service.from('products').insert({ id: hidden, name: 'hidden', category: 'cables', status: false }))
    await write(service.from('products').insert({ id: shown, name: 'shown', category: 'cables', price: 12.5 }))

    await waitFor(got, 1, 'insert')
    await sleep(500)
    assert.equal(got.length, 1, 'only the active product')
    const [change] = got
    assert.equal(change.eventType, 'INSERT')
    assert.equal(change.schema, 'public')
    assert.equal(change.table, 'products')
    assert.match(change.commit_timestamp, stamp)
    assert.equal(change.errors, null)
    assert.equal(change.new.id, shown)
    assert.equal(change.new.price, 12.5)
    assert.equal(change.new.status, true)
    assert.deepEqual(change.old, {})
  })

  test(`a filtered binding gets its row's insert, update and delete with old rows in full (${vsn})`, async () => {
    const id = nextId++
    const channel = realtimeClient(vsn).channel(`notes-${vsn}-${randomUUID()}`)
    const got = collect(channel, { event: '*', schema: 'public', table: 'rt_notes', filter: `id=eq.${id}` })
    await watching(channel)
    await write(service.from('rt_notes').insert({ id: id + 1_000_000_000, body: 'another row' }))
    // Array elements with spaces, quotes and commas arrive as PostgreSQL
    // holds them, not split on every comma.
    const tags = ['red', 'with space', 'q"uote,comma']
    await write(service.from('rt_notes').insert({ id, body: 'hola', tags }))
    await write(service.from('rt_notes').update({ body: 'chau', done: true }).eq('id', id))
    await write(service.from('rt_notes').delete().eq('id', id))

    await waitFor(got, 3, 'changes')
    assert.deepEqual(got.map((c) => c.eventType), ['INSERT', 'UPDATE', 'DELETE'])
    assert.deepEqual(got[0].new, { id, body: 'hola', tags, done: false })
    assert.deepEqual(got[1].old, { id, body: 'hola', tags, done: false })
    assert.deepEqual(got[1].new, { id, body: 'chau', tags, done: true })
    assert.deepEqual(got[2].old, { id, body: 'chau', tags, done: true })
    await sleep(300)
    assert.equal(got.length, 3)
  })
}

for (const vsn of ['1.0.0', '2.0.0']) {
  test(`filters joined by commas, negated, with a select list: only the matching rows' listed columns (${vsn})`, async () => {
    const id = nextId++
    nextId += 3
    const channel = realtimeClient(vsn).channel(`filters-${vsn}-${randomUUID()}`)
    const filter = `id=gte.${id},id=lte.${id + 3},body=not.ilike.skip%,done=is.false,id=not.in.(${id + 3})`
    const got = collect(channel, { event: 'INSERT', schema: 'public', table: 'rt_notes', filter, select: ['body'] })
    await watching(channel)
    await write(service.from('rt_notes').insert([
      { id, body: 'kept', done: false },
      { id: id + 1, body: 'Skip me', done: false },
      { id: id + 2, body: 'done already', done: true },
      { id: id + 3, body: 'not in', done: false },
    ]))

    await waitFor(got, 1, 'insert')
    await sleep(500)
    assert.equal(got.length, 1, 'only the first row matches every filter')
    assert.deepEqual(got[0].new, { id, body: 'kept' })
  })

  test(`a filter PostgreSQL cannot read, or Realtime cannot parse, is refused with Realtime's message (${vsn})`, async () => {
    const cases = [
      ['id=eq.abc', /^Error: Unable to subscribe to changes with given parameters\. An exception happened .* invalid input syntax for type bigint: "abc"$/],
      ['id=foo.1', /^Error: Error parsing `filter` params: \["foo", "1"\]$/],
      ['nope=eq.1', /invalid column for filter nope$/],
    ]
    for (const [filter, message] of cases) {
      const channel = realtimeClient(vsn).channel(`refused-${vsn}-${randomUUID()}`)
      channel.on('postgres_changes', { event: '*', schema: 'public', table: 'rt_notes', filter }, () => {})
      await assert.rejects(watching(channel), message)
    }
  })

  test(`replication_ready: the system event says changes can flow (${vsn})`, async () => {
    const channel = realtimeClient(vsn).channel(`ready-${vsn}-${randomUUID()}`, {
      config: { broadcast: { replication_ready: true } },
    })
    const told = new Promise((resolve) => channel.on('system', {}, resolve))
    channel.subscribe()
    const payload = await within(5000, told, 'system event')
    assert.equal(payload.extension, 'system')
    assert.equal(payload.status, 'ok')
    assert.equal(payload.message, 'Replication connection established')
  })
}

test('after setAuth with a signed-in token the channel sees inactive products too', async () => {
  const supabase = realtimeClient('2.0.0')
  const channel = supabase.channel(`staff-${randomUUID()}`)
  const got = collect(channel, { event: 'INSERT', schema: 'public', table: 'products', filter: 'status=eq.false' })
  await watching(channel)
  await write(service.from('products').insert({ id: nextId++, name: 'unseen', category: 'cables', status: false }))
  await sleep(500)
  assert.equal(got.length, 0, 'anon does not see an inactive product')

  const now = Math.floor(Date.now() / 1000)
  await supabase.realtime.setAuth(token({ sub: randomUUID(), role: 'authenticated', exp: now + 600 }))
  await sleep(300)
  const seen = nextId++
  await write(service.from('products').insert({ id: seen, name: 'seen', category: 'cables', status: false }))
  await waitFor(got, 1, 'insert')
  assert.equal(got[0].new.id, seen)
})

test("a table that is not in the publication is refused with Realtime's reason", async () => {
  const channel = realtimeClient('1.0.0').channel(`refused-${randomUUID()}`)
  channel.on('postgres_changes', { event: '*', schema: 'public', table: 'product_categories' }, () => {})
  await assert.rejects(watching(channel), /^Error: Unable to subscribe to changes with given parameters/)
})

// A second `gateway serve` on the same database; resolves with its URL.
async function secondGateway() {
  const database = process.env.GATEWAY_DATABASE_URL.replace(/user=[^&]*/, 'user=authenticator')
  const child = spawn(process.env.GATEWAY_BIN, ['serve', '--data-dir', process.env.GATEWAY_DATA_DIR, '--listen', '127.0.0.1:0'], {
    env: { ...process.env, DATABASE_URL: database },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const address = await within(60_000, new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk
      const found = output.match(/API URL:\s+(\S+)/)
      if (found) resolve(found[1])
    })
    child.stderr.on('data', (chunk) => { output += chunk })
    child.on('exit', (code) => reject(new Error(`the second gateway exited (${code}):\n${output}`)))
  }), 'second gateway')
  return {
    url: address,
    stop: () => new Promise((resolve) => {
      child.removeAllListeners('exit')
      child.on('exit', resolve)
      child.kill('SIGINT')
    }),
  }
}

test('two gateways on one database: a change reaches the clients of both, once each', async () => {
  const other = await secondGateway()
  try {
    const here = realtimeClient('2.0.0').channel(`both-${randomUUID()}`)
    const there = realtimeClient('1.0.0', other.url).channel(`both-${randomUUID()}`)
    const id = nextId++
    const filter = { event: 'INSERT', schema: 'public', table: 'rt_notes', filter: `id=eq.${id}` }
    const gotHere = collect(here, filter)
    const gotThere = collect(there, filter)
    await watching(here)
    await watching(there)
    await write(service.from('rt_notes').insert({ id, body: 'both' }))
    await waitFor(gotHere, 1, 'change on the first gateway')
    await waitFor(gotThere, 1, 'change on the second gateway')
    await sleep(500)
    assert.deepEqual([gotHere.length, gotThere.length], [1, 1])
    assert.equal(gotThere[0].new.body, 'both')
    await there.unsubscribe()
  } finally {
    await other.stop()
  }
})
