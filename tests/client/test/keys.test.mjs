// Supabase's current keys through the real supabase-js (docs/keys.md): the
// shop's calls with a publishable key, admin calls with a secret key, the
// browser refusal, a key revoked on one gateway refused by a second gateway on
// the same database, a signing-key rotation with tokens of both keys valid,
// and getClaims verifying locally against the JWKS.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, execFileSync } from 'node:child_process'
import { createClient } from '@supabase/supabase-js'
import { client, url, publishableKey, secretKey } from '../lib/env.mjs'

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36'
const run = Date.now().toString(36)
const admin = client(secretKey)

// `gateway <args>` against the test gateway's database (scripts/test.sh
// exports where it is and the data directory holding its JWT secret).
function gateway(...args) {
  const [command, ...rest] = args
  return execFileSync(
    process.env.GATEWAY_BIN,
    [command, '--database-url', process.env.GATEWAY_DATABASE_URL, ...rest],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  ).trim()
}

const children = []
after(() => {
  for (const child of children) child.kill('SIGINT')
})

// A second gateway on the same database, as a scaled-out deployment runs.
async function secondGateway() {
  const child = spawn(
    process.env.GATEWAY_BIN,
    ['serve', '--database-url', process.env.GATEWAY_DATABASE_URL, '--listen', '127.0.0.1:0'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  children.push(child)
  let banner = ''
  for await (const chunk of child.stdout) {
    banner += chunk
    if (banner.includes('service_role key:')) break
  }
  return banner.match(/API URL:\s+(\S+)/)[1]
}

function uniqueEmail(name) {
  return `${name}-${run}-${Math.random().toString(36).slice(2, 8)}@example.com`
}

async function seededUser(name) {
  const email = uniqueEmail(name)
  const password = 's3cret-pw'
  const { data, error } = await admin.auth.admin.createUser({ email, password, email_confirm: true })
  assert.equal(error, null)
  return { email, password, id: data.user.id }
}

async function until(check, ms = 5000) {
  const start = Date.now()
  while (Date.now() - start < ms) {
    if (await check()) return Date.now() - start
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return null
}

test('the shop works with a publishable key: listing, sign-in, staff writes, public images', async () => {
  assert.match(publishableKey, /^sb_publishable_/)
  const shop = client(publishableKey)
  const { data: listing, error, count } = await shop
    .from('products')
    .select('id, name, brands(name)', { count: 'exact' })
    .eq('status', true)
    .order('id')
  assert.equal(error, null)
  assert.ok(listing.length > 0 && count === listing.length)

  const bucket = `keys-${run}`
  assert.equal((await admin.storage.createBucket(bucket, { public: true })).error, null)
  const image = new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' })
  assert.equal((await admin.storage.from(bucket).upload('p.png', image)).error, null)
  const { data: publicUrl } = shop.storage.from(bucket).getPublicUrl('p.png')
  assert.equal((await fetch(publicUrl.publicUrl)).status, 200)

  const staff = await seededUser('staff')
  const { data: signedIn, error: signInError } = await shop.auth.signInWithPassword(staff)
  assert.equal(signInError, null)
  assert.equal(signedIn.user.id, staff.id)
  const { data: all } = await shop.from('products').select('id')
  assert.ok(all.length >= listing.length, 'staff see inactive products too')
  const { data: made, error: insertError } = await shop
    .from('products')
    .insert({ id: 900000 + Math.floor(Math.random() * 90000), name: `keys ${run}`, price: 1, quantity: 1, status: false })
    .select('id, name')
    .single()
  assert.equal(insertError, null)
  assert.equal(made.name, `keys ${run}`)
  const anonymous = client(publishableKey)
  const { data: hidden } = await anonymous.from('products').select('id').eq('id', made.id)
  assert.deepEqual(hidden, [], 'anon (the publishable key alone) sees no inactive product')
})

test('a secret key makes admin calls on auth, storage and the database', async () => {
  assert.match(secretKey, /^sb_secret_/)
  const user = await seededUser('admin')
  const { data, error } = await admin.auth.admin.getUserById(user.id)
  assert.equal(error, null)
  assert.equal(data.user.email, user.email)
  const { data: buckets, error: listError } = await admin.storage.listBuckets()
  assert.equal(listError, null)
  assert.ok(Array.isArray(buckets))
  const { data: role } = await admin.rpc('whoami')
  assert.equal(role, 'service_role')
  const { data: anonRole } = await client(publishableKey).rpc('whoami')
  assert.equal(anonRole, 'anon')
})

test('a secret key used from a browser is refused with 401', async () => {
  const browser = createClient(url, secretKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    global: { headers: { 'User-Agent': BROWSER } },
  })
  const { error, status } = await browser.from('products').select('id')
  assert.equal(status, 401)
  assert.equal(error.message, 'Forbidden use of secret API key in browser')
  const { error: authError } = await browser.auth.admin.listUsers()
  assert.equal(authError.status, 401)
  const publishable = createClient(url, publishableKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    global: { headers: { 'User-Agent': BROWSER } },
  })
  assert.equal((await publishable.from('products').select('id')).status, 200)
})

test('a key made and revoked with the CLI is accepted, then refused, by two gateways on one database', async () => {
  const secondUrl = await secondGateway()
  const name = `backend-${run}`
  const made = gateway('keys', 'create', '--kind', 'secret', '--name', name)
  const key = made.split(' ').pop()
  assert.match(key, /^sb_secret_/)
  const roleOn = async (base) => {
    const supabase = createClient(base, key, { auth: { persistSession: false, autoRefreshToken: false } })
    const { data, status } = await supabase.rpc('whoami')
    return status === 200 ? data : status
  }
  for (const base of [url, secondUrl]) {
    assert.notEqual(await until(async () => (await roleOn(base)) === 'service_role'), null, base)
  }
  assert.match(gateway('keys', 'list'), new RegExp(`${name}\\tsecret\\t${key.slice(0, 16)}`))
  gateway('keys', 'revoke', '--kind', 'secret', '--name', name)
  for (const base of [url, secondUrl]) {
    const waited = await until(async () => (await roleOn(base)) === 401)
    assert.notEqual(waited, null, `${base} refuses the revoked key`)
    assert.ok(waited < 3000, `within seconds: ${waited} ms`)
  }
})

test('getClaims verifies an asymmetric token locally, with no /user request', async () => {
  const user = await seededUser('claims')
  const requests = []
  const recording = (input, init) => {
    requests.push(String(input))
    return fetch(input, init)
  }
  const supabase = createClient(url, publishableKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    global: { fetch: recording },
  })
  assert.equal((await supabase.auth.signInWithPassword(user)).error, null)
  requests.length = 0
  const { data, error } = await supabase.auth.getClaims()
  assert.equal(error, null)
  assert.equal(data.claims.sub, user.id)
  assert.match(data.header.alg, /^(ES256|RS256)$/)
  assert.ok(requests.some((r) => r.endsWith('/auth/v1/.well-known/jwks.json')), requests.join(' '))
  assert.ok(!requests.some((r) => r.includes('/auth/v1/user')), requests.join(' '))
})

test('after a rotation tokens of both keys are valid, until the old key is revoked', async () => {
  const user = await seededUser('rotation')
  const before = client(publishableKey)
  const { data: first } = await before.auth.signInWithPassword(user)
  const oldToken = first.session.access_token
  const header = (token) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url'))
  const oldKid = header(oldToken).kid

  const standby = gateway('signing-keys', 'create', '--algorithm', 'RS256').split(' ').pop()
  gateway('signing-keys', 'rotate')
  const fresh = client(publishableKey)
  const newKid = await until(async () => {
    const { data } = await fresh.auth.signInWithPassword(user)
    return header(data.session.access_token).kid === standby
  })
  assert.notEqual(newKid, null, 'new tokens are signed with the new key')
  const { data: second } = await fresh.auth.getSession()
  const newToken = second.session.access_token
  assert.equal(header(newToken).alg, 'RS256')

  const asUser = (token) =>
    createClient(url, publishableKey, {
      auth: { persistSession: false, autoRefreshToken: false },
      global: { headers: { Authorization: `Bearer ${token}` } },
    })
  for (const token of [oldToken, newToken]) {
    const { data, status } = await asUser(token).rpc('whoami')
    assert.deepEqual([status, data], [200, 'authenticated'])
    const { error } = await client(publishableKey).auth.getClaims(token)
    assert.equal(error, null)
  }

  gateway('signing-keys', 'revoke', oldKid)
  assert.notEqual(await until(async () => (await asUser(oldToken).rpc('whoami')).status === 401), null)
  assert.equal((await asUser(newToken).rpc('whoami')).status, 200)
})
