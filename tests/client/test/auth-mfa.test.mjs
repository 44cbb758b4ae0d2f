// supabase-js's MFA API (`auth.mfa.*`) with TOTP against /auth/v1, then
// anonymous sign-ins and the custom access-token hook on a second gateway
// started with those settings on the same database (docs/services/auth.md:
// "MFA with TOTP", "Anonymous sign-ins", "Custom access-token hook").
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, execFileSync } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { createClient } from '@supabase/supabase-js'
import { client, serviceKey } from '../lib/env.mjs'

const admin = client(serviceKey)
const run = Date.now().toString(36)

function uniqueEmail(name) {
  return `${name}-${run}-${Math.random().toString(36).slice(2, 8)}@example.com`
}

async function signedIn(supabase, name) {
  const email = uniqueEmail(name)
  const password = 's3cret-pw'
  const created = await admin.auth.admin.createUser({ email, password, email_confirm: true })
  assert.equal(created.error, null)
  const { error } = await supabase.auth.signInWithPassword({ email, password })
  assert.equal(error, null)
  return { email, password, id: created.data.user.id }
}

// RFC 6238 as an authenticator app computes it: HMAC-SHA-1, 30 s, 6 digits.
function totp(secret, offset = 0) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  let bits = ''
  for (const c of secret.replace(/=+$/, '')) bits += alphabet.indexOf(c).toString(2).padStart(5, '0')
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)))
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 1000 / 30) + offset))
  const digest = createHmac('sha1', key).update(counter).digest()
  const at = digest[digest.length - 1] & 0x0f
  return String((digest.readUInt32BE(at) & 0x7fffffff) % 1_000_000).padStart(6, '0')
}

function jwtPayload(token) {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString())
}

test('a TOTP factor is enrolled, verified into aal2, listed, and unenrolled through supabase-js', async () => {
  const supabase = client()
  const user = await signedIn(supabase, 'mfa')

  const before = await supabase.auth.mfa.getAuthenticatorAssuranceLevel()
  assert.deepEqual(
    [before.data.currentLevel, before.data.nextLevel],
    ['aal1', 'aal1'],
  )

  const { data: enrolled, error } = await supabase.auth.mfa.enroll({
    factorType: 'totp',
    friendlyName: 'phone app',
    issuer: 'Shop',
  })
  assert.equal(error, null)
  assert.equal(enrolled.type, 'totp')
  assert.match(enrolled.totp.qr_code, /^data:image\/svg\+xml;utf-8,<svg /)
  assert.match(enrolled.totp.uri, new RegExp(`^otpauth://totp/Shop:${encodeURIComponent(user.email)}\\?`))

  const code = totp(enrolled.totp.secret)
  const { data: verified, error: verifyError } = await supabase.auth.mfa.challengeAndVerify({
    factorId: enrolled.id,
    code,
  })
  assert.equal(verifyError, null)
  assert.equal(jwtPayload(verified.access_token).aal, 'aal2')

  const after = await supabase.auth.mfa.getAuthenticatorAssuranceLevel()
  assert.deepEqual([after.data.currentLevel, after.data.nextLevel], ['aal2', 'aal2'])
  assert.deepEqual(
    after.data.currentAuthenticationMethods.map((m) => m.method),
    ['totp', 'password'],
  )
  const { data: factors } = await supabase.auth.mfa.listFactors()
  assert.deepEqual(factors.totp.map((f) => f.id), [enrolled.id])
  assert.equal(factors.totp[0].friendly_name, 'phone app')

  // The same code again, on a new challenge: refused (also once its 30 s
  // window has passed, which recomputing the code would not test).
  const { data: challenge } = await supabase.auth.mfa.challenge({ factorId: enrolled.id })
  const replay = await supabase.auth.mfa.verify({ factorId: enrolled.id, challengeId: challenge.id, code })
  assert.equal(replay.error?.code, 'mfa_verification_failed')

  // A new sign-in is aal1, which supabase-js reports as needing aal2.
  const other = client()
  await other.auth.signInWithPassword({ email: user.email, password: user.password })
  const low = await other.auth.mfa.getAuthenticatorAssuranceLevel()
  assert.deepEqual([low.data.currentLevel, low.data.nextLevel], ['aal1', 'aal2'])
  const refused = await other.auth.mfa.unenroll({ factorId: enrolled.id })
  assert.equal(refused.error?.code, 'insufficient_aal')

  const { error: unenrollError } = await supabase.auth.mfa.unenroll({ factorId: enrolled.id })
  assert.equal(unenrollError, null)
  await supabase.auth.refreshSession()
  const { data: none } = await supabase.auth.mfa.listFactors()
  assert.deepEqual(none.all, [])
})

// A second gateway on the test's database with anonymous sign-ins and the
// access-token hook turned on.
const children = []
after(() => {
  for (const child of children) child.kill('SIGINT')
})

function psql(sql) {
  execFileSync('psql', [process.env.GATEWAY_DATABASE_URL, '-v', 'ON_ERROR_STOP=1', '-qc', sql], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
}

async function gatewayWith(env) {
  const database = process.env.GATEWAY_DATABASE_URL.replace(/user=[^&]*/, 'user=authenticator')
  const child = spawn(
    process.env.GATEWAY_BIN,
    ['serve', '--data-dir', process.env.GATEWAY_DATA_DIR, '--listen', '127.0.0.1:0'],
    { env: { ...process.env, DATABASE_URL: database, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  children.push(child)
  let banner = ''
  for await (const chunk of child.stdout) {
    banner += chunk
    if (banner.includes('service_role key:')) break
  }
  const anon = banner.match(/anon key:\s+(\S+)/)[1]
  const url = banner.match(/API URL:\s+(\S+)/)[1]
  return () => createClient(url, anon, { auth: { persistSession: false, autoRefreshToken: false } })
}

test('anonymous users sign in, become permanent with an e-mail, and the hook adds a role claim to every token', async () => {
  psql(`
    create table if not exists public.client_user_roles (user_id uuid primary key, role text not null);
    grant select on public.client_user_roles to service_role;
    create or replace function public.client_access_token_hook(event jsonb) returns jsonb
    language sql stable as $$
      select jsonb_build_object('claims', (event->'claims') || jsonb_build_object('user_role',
        coalesce((select role from public.client_user_roles where user_id = (event->>'user_id')::uuid), 'guest')))
    $$;
    grant execute on function public.client_access_token_hook(jsonb) to service_role;`)
  const connect = await gatewayWith({
    AUTH_ANONYMOUS_USERS_ENABLED: 'true',
    AUTH_HOOK_CUSTOM_ACCESS_TOKEN_URI: 'pg-functions://postgres/public/client_access_token_hook',
  })
  const supabase = connect()

  const { data, error } = await supabase.auth.signInAnonymously({ options: { data: { nickname: 'guest' } } })
  assert.equal(error, null)
  assert.equal(data.user.is_anonymous, true)
  assert.equal(data.user.user_metadata.nickname, 'guest')
  const claims = jwtPayload(data.session.access_token)
  assert.equal(claims.is_anonymous, true)
  assert.equal(claims.user_role, 'guest')
  assert.deepEqual(claims.amr.map((m) => m.method), ['anonymous'])

  const email = uniqueEmail('converted')
  const { data: updated, error: updateError } = await supabase.auth.updateUser({ email })
  assert.equal(updateError, null)
  assert.equal(updated.user.is_anonymous, false)
  assert.equal(updated.user.email, email)

  psql(`insert into public.client_user_roles values ('${data.user.id}', 'editor')`)
  const { data: refreshed } = await supabase.auth.refreshSession()
  const after = jwtPayload(refreshed.session.access_token)
  assert.equal(after.is_anonymous, false)
  assert.equal(after.user_role, 'editor')
})
