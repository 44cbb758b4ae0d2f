// "Sign in with ..." through the real supabase-js against an OpenID Connect
// provider this file runs on loopback (docs/services/auth.md, "OAuth and
// OpenID Connect providers"): signInWithOAuth with PKCE, the browser's redirects followed by
// hand, exchangeCodeForSession and getUser; then signInWithIdToken with a
// token the provider signed, and one it did not.
//
// The provider signs RS256 with a key made here and checks the client secret,
// the redirect URI and that a code is used once, as a real one does. A second
// gateway on the test database is started with it configured.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import net from 'node:net'
import { generateKeyPairSync, createSign, randomUUID } from 'node:crypto'
import { createClient } from '@supabase/supabase-js'
import { anonKey } from '../lib/env.mjs'

const CLIENT_ID = 'shop-client'
const CLIENT_SECRET = 'shop-client-secret'
const SITE = 'http://shop.example.com'

const b64url = (data) => Buffer.from(data).toString('base64url')

function makeKey(kid) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }
  const sign = (claims) => {
    const input = `${b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid }))}.${b64url(JSON.stringify(claims))}`
    return `${input}.${createSign('RSA-SHA256').update(input).sign(privateKey).toString('base64url')}`
  }
  return { jwk, sign }
}

const key = makeKey('k1')
const stranger = makeKey('k1')
const codes = new Map()
let issuer
let person = { sub: `sub-${randomUUID()}`, email: `oidc-${Date.now()}@example.com`, name: 'Iris Dee' }

function claims(nonce) {
  const now = Math.floor(Date.now() / 1000)
  return { iss: issuer, sub: person.sub, aud: CLIENT_ID, iat: now, exp: now + 3600, email: person.email,
    email_verified: true, name: person.name, ...(nonce ? { nonce } : {}) }
}

async function body(req) {
  let text = ''
  for await (const chunk of req) text += chunk
  return new URLSearchParams(text)
}

const provider = createServer(async (req, res) => {
  const url = new URL(req.url, issuer)
  const json = (status, value) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(value))
  }
  if (url.pathname === '/.well-known/openid-configuration') {
    return json(200, { issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`, response_types_supported: ['code'], id_token_signing_alg_values_supported: ['RS256'] })
  }
  if (url.pathname === '/jwks') return json(200, { keys: [key.jwk] })
  if (url.pathname === '/authorize') {
    const q = url.searchParams
    if (q.get('client_id') !== CLIENT_ID || !q.get('scope')?.split(' ').includes('openid')) return json(400, {})
    const code = randomUUID()
    codes.set(code, { redirectUri: q.get('redirect_uri'), nonce: q.get('nonce') })
    const back = new URL(q.get('redirect_uri'))
    back.searchParams.set('code', code)
    back.searchParams.set('state', q.get('state'))
    res.writeHead(302, { location: back.toString() })
    return res.end()
  }
  if (url.pathname === '/token' && req.method === 'POST') {
    const form = await body(req)
    const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString()
    if (basic !== `${CLIENT_ID}:${CLIENT_SECRET}`) return json(401, { error: 'invalid_client' })
    const grant = codes.get(form.get('code'))
    codes.delete(form.get('code'))
    if (!grant || grant.redirectUri !== form.get('redirect_uri')) return json(400, { error: 'invalid_grant' })
    return json(200, { access_token: `at-${randomUUID()}`, token_type: 'Bearer', expires_in: 3600,
      id_token: key.sign(claims(grant.nonce)) })
  }
  json(404, {})
})

const freePort = () =>
  new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

let gateway
let child

before(async () => {
  await new Promise((resolve) => provider.listen(0, '127.0.0.1', resolve))
  issuer = `http://127.0.0.1:${provider.address().port}`
  const port = await freePort()
  gateway = `http://127.0.0.1:${port}`
  child = spawn(
    process.env.GATEWAY_BIN,
    ['serve', '--database-url', process.env.GATEWAY_DATABASE_URL, '--listen', `127.0.0.1:${port}`],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, AUTH_OIDC_PROVIDERS: `corp|${issuer}|${CLIENT_ID}|${CLIENT_SECRET}`,
        AUTH_EXTERNAL_URL: `${gateway}/auth/v1`, AUTH_SITE_URL: SITE },
    },
  )
  let banner = ''
  for await (const chunk of child.stdout) {
    banner += chunk
    if (banner.includes('service_role key:')) break
  }
})

after(() => {
  child?.kill('SIGINT')
  provider.close()
})

// What a browser does with a 302: the next URL.
async function follow(url) {
  const response = await fetch(url, { redirect: 'manual' })
  assert.equal(response.status, 302, `${url} → ${response.status} ${await response.text()}`)
  return response.headers.get('location')
}

test('signInWithOAuth with PKCE, the provider, exchangeCodeForSession and getUser', async () => {
  const supabase = createClient(gateway, anonKey, {
    auth: { flowType: 'pkce', persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  })
  const { data, error } = await supabase.auth.signInWithOAuth({
    provider: 'corp',
    options: { redirectTo: `${SITE}/welcome`, skipBrowserRedirect: true },
  })
  assert.equal(error, null)
  assert.match(data.url, /\/auth\/v1\/authorize\?provider=corp&redirect_to=.*code_challenge=.+&code_challenge_method=s256/)

  const atProvider = await follow(data.url)
  assert.ok(atProvider.startsWith(`${issuer}/authorize?`), atProvider)
  const atCallback = await follow(atProvider)
  assert.ok(atCallback.startsWith(`${gateway}/auth/v1/callback?`), atCallback)
  const landed = new URL(await follow(atCallback))
  assert.equal(`${landed.origin}${landed.pathname}`, `${SITE}/welcome`)
  const code = landed.searchParams.get('code')
  assert.ok(code)

  const { data: exchanged, error: exchangeError } = await supabase.auth.exchangeCodeForSession(code)
  assert.equal(exchangeError, null)
  assert.equal(exchanged.user.email, person.email)
  assert.ok(exchanged.session.provider_token)
  const { data: me, error: meError } = await supabase.auth.getUser()
  assert.equal(meError, null)
  assert.equal(me.user.id, exchanged.user.id)
  assert.deepEqual(me.user.identities.map((i) => [i.provider, i.id]), [['corp', person.sub]])
  assert.equal(me.user.app_metadata.provider, 'corp')

  // The code is spent.
  const again = createClient(gateway, anonKey, { auth: { persistSession: false, autoRefreshToken: false } })
  const { error: reuse } = await again.auth.exchangeCodeForSession(code)
  assert.ok(reuse)
})

test('signInWithIdToken takes a token the provider signed and refuses one it did not', async () => {
  const supabase = createClient(gateway, anonKey, { auth: { persistSession: false, autoRefreshToken: false } })
  const { data, error } = await supabase.auth.signInWithIdToken({ provider: 'corp', token: key.sign(claims()) })
  assert.equal(error, null)
  assert.equal(data.user.email, person.email)
  assert.equal(data.session.token_type, 'bearer')

  const { error: forged } = await supabase.auth.signInWithIdToken({ provider: 'corp', token: stranger.sign(claims()) })
  assert.equal(forged?.status, 400)
  assert.equal(forged?.message, 'Bad ID token')

  const { error: unknown } = await supabase.auth.signInWithIdToken({ provider: 'nope', token: key.sign(claims()) })
  assert.equal(unknown?.code, 'validation_failed')
})
