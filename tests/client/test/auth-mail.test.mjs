// The e-mail flows through the real supabase-js (docs/services/auth.md, "E-mail over SMTP"):
// a second gateway on the test database with autoconfirm off and its SMTP
// pointed at a small SMTP server started here on loopback (a real SMTP
// dialogue), whose mails are read back so each link or code completes the
// flow as a user would.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { createClient } from '@supabase/supabase-js'

const run = Date.now().toString(36)
const inbox = []
let smtp
let gateway
let url
let anonKey
let serviceKey

// RFC 5321's dialogue, enough for a client: greeting, EHLO, MAIL, RCPT, DATA, QUIT.
function startSmtp() {
  const server = createServer((socket) => {
    let buffer = ''
    let inData = false
    let to = []
    socket.write('220 sink ESMTP\r\n')
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8')
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n')
          if (end < 0) return
          inbox.push({ to, data: buffer.slice(0, end) })
          buffer = buffer.slice(end + 5)
          inData = false
          socket.write('250 queued\r\n')
          continue
        }
        const eol = buffer.indexOf('\r\n')
        if (eol < 0) return
        const line = buffer.slice(0, eol)
        buffer = buffer.slice(eol + 2)
        const verb = line.slice(0, 4).toUpperCase()
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250-sink\r\n250 8BITMIME\r\n')
        else if (verb === 'MAIL') (to = []), socket.write('250 ok\r\n')
        else if (verb === 'RCPT') to.push(line.split(/[<>]/)[1].toLowerCase()), socket.write('250 ok\r\n')
        else if (verb === 'DATA') (inData = true), socket.write('354 go ahead\r\n')
        else if (verb === 'QUIT') socket.end('221 bye\r\n')
        else socket.write('250 ok\r\n')
      }
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

// The body, quoted-printable decoded, with HTML's &amp; undone.
function body(mail) {
  const raw = mail.data.slice(mail.data.indexOf('\r\n\r\n') + 4).replace(/=\r\n/g, '')
  const bytes = Buffer.from(raw.replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16))), 'latin1')
  return bytes.toString('utf8').replace(/&amp;/g, '&')
}
const linkOf = (mail) => body(mail).match(/href="([^"]+)"/)[1]
const codeOf = (mail) => body(mail).match(/: (\d{6})/)[1]

async function mailTo(address, n = 0) {
  for (let i = 0; i < 200; i++) {
    const mails = inbox.filter((m) => m.to.includes(address))
    if (mails.length > n) return mails[n]
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no mail ${n} to ${address}`)
}

// Follows a mailed link on this gateway: the session or error in the fragment
// of where it redirects.
async function follow(link) {
  const query = link.slice(link.indexOf('/verify?'))
  const response = await fetch(`${url}/auth/v1${query}`, { redirect: 'manual' })
  assert.equal(response.status, 303)
  const location = response.headers.get('location')
  return { location, fragment: Object.fromEntries(new URLSearchParams(location.split('#')[1])) }
}

before(async () => {
  smtp = await startSmtp()
  gateway = spawn(
    process.env.GATEWAY_BIN,
    ['serve', '--database-url', process.env.GATEWAY_DATABASE_URL, '--listen', '127.0.0.1:0'],
    {
      env: {
        ...process.env,
        AUTH_AUTOCONFIRM: 'false',
        AUTH_SMTP_HOST: '127.0.0.1',
        AUTH_SMTP_PORT: String(smtp.address().port),
        AUTH_SMTP_TLS: 'none',
        AUTH_SMTP_MAX_FREQUENCY: '0',
        AUTH_MAILER_LANGUAGE: 'en',
        SITE_URL: 'http://localhost:5173',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let banner = ''
  for await (const chunk of gateway.stdout) {
    banner += chunk
    if (banner.includes('service_role key:')) break
  }
  url = banner.match(/API URL:\s+(\S+)/)[1]
  anonKey = banner.match(/anon key:\s+(\S+)/)[1]
  serviceKey = banner.match(/service_role key:\s+(\S+)/)[1]
})

after(() => {
  gateway?.kill('SIGINT')
  smtp?.close()
})

const client = (key = anonKey) => createClient(url, key, { auth: { persistSession: false, autoRefreshToken: false } })
const email = (name) => `${name}-${run}@example.com`

test('signUp mails a link that confirms the address and signs in, once', async () => {
  const supabase = client()
  const address = email('signup')
  const { data, error } = await supabase.auth.signUp({
    email: address,
    password: 's3cret-pw',
    options: { emailRedirectTo: 'http://localhost:5173/welcome' },
  })
  assert.equal(error, null)
  assert.equal(data.session, null)
  assert.ok(data.user.confirmation_sent_at)
  const mail = await mailTo(address)
  const { location, fragment } = await follow(linkOf(mail))
  assert.ok(location.startsWith('http://localhost:5173/welcome#'), location)
  assert.equal(fragment.type, 'signup')
  const { data: set, error: setError } = await supabase.auth.setSession({
    access_token: fragment.access_token,
    refresh_token: fragment.refresh_token,
  })
  assert.equal(setError, null)
  assert.ok(set.user.email_confirmed_at)
  const again = await follow(linkOf(mail))
  assert.equal(again.fragment.error_code, 'otp_expired')
})

test('resetPasswordForEmail, signInWithOtp and resend complete with verifyOtp', async () => {
  const admin = client(serviceKey)
  const address = email('otp')
  await admin.auth.admin.createUser({ email: address, password: 's3cret-pw', email_confirm: true })
  const supabase = client()

  assert.deepEqual(await supabase.auth.resetPasswordForEmail(address), { data: {}, error: null })
  const recovery = await supabase.auth.verifyOtp({ email: address, token: codeOf(await mailTo(address, 0)), type: 'recovery' })
  assert.equal(recovery.error, null)
  assert.equal(recovery.data.user.email, address)
  const reused = await supabase.auth.verifyOtp({ email: address, token: codeOf(await mailTo(address, 0)), type: 'recovery' })
  assert.equal(reused.error.code, 'otp_expired')

  const otp = await supabase.auth.signInWithOtp({ email: address, options: { shouldCreateUser: false } })
  assert.equal(otp.error, null)
  const signedIn = await supabase.auth.verifyOtp({ email: address, token: codeOf(await mailTo(address, 1)), type: 'email' })
  assert.equal(signedIn.error, null)
  assert.ok(signedIn.data.session.access_token)

  const unknown = await supabase.auth.signInWithOtp({ email: email('nobody'), options: { shouldCreateUser: false } })
  assert.equal(unknown.error.name, 'AuthApiError', 'GoTrue refuses an unknown address when no user may be made')
  assert.equal(unknown.error.status, 422)
  assert.equal(unknown.error.code, 'otp_disabled')
  assert.equal(unknown.error.message, 'Signups not allowed for otp')

  const pending = email('pending')
  await client().auth.signUp({ email: pending, password: 's3cret-pw' })
  await mailTo(pending, 0)
  assert.equal((await supabase.auth.resend({ type: 'signup', email: pending })).error, null)
  const confirmed = await supabase.auth.verifyOtp({ token_hash: new URL(linkOf(await mailTo(pending, 1))).searchParams.get('token'), type: 'signup' })
  assert.equal(confirmed.error, null)
})

test('updateUser({email}) is confirmed from both addresses; reauthenticate mails a nonce', async () => {
  const admin = client(serviceKey)
  const [before, after] = [email('old'), email('new')]
  await admin.auth.admin.createUser({ email: before, password: 's3cret-pw', email_confirm: true })
  const supabase = client()
  await supabase.auth.signInWithPassword({ email: before, password: 's3cret-pw' })
  const { data, error } = await supabase.auth.updateUser({ email: after })
  assert.equal(error, null)
  assert.equal(data.user.new_email, after)
  const first = await follow(linkOf(await mailTo(before)))
  assert.match(first.fragment.message, /Confirmation link accepted/)
  const second = await follow(linkOf(await mailTo(after)))
  assert.equal(second.fragment.type, 'email_change')
  const { data: user } = await admin.auth.admin.getUserById(data.user.id)
  assert.equal(user.user.email, after)

  assert.equal((await supabase.auth.reauthenticate()).error, null)
  assert.match(codeOf(await mailTo(after, 1)), /^\d{6}$/, 'to the address now in use')
})

test('admin.generateLink and admin.inviteUserByEmail', async () => {
  const admin = client(serviceKey)
  const address = email('link')
  await admin.auth.admin.createUser({ email: address, password: 's3cret-pw', email_confirm: true })
  const { data, error } = await admin.auth.admin.generateLink({ type: 'magiclink', email: address })
  assert.equal(error, null)
  assert.equal(data.properties.verification_type, 'magiclink')
  assert.match(data.properties.email_otp, /^\d{6}$/)
  const { fragment } = await follow(data.properties.action_link)
  assert.equal(fragment.type, 'magiclink')

  const invited = email('invited')
  const invite = await admin.auth.admin.inviteUserByEmail(invited, { data: { role: 'editor' } })
  assert.equal(invite.error, null)
  assert.ok(invite.data.user.invited_at)
  const accepted = await follow(linkOf(await mailTo(invited)))
  assert.equal(accepted.fragment.type, 'invite')
})

// PKCE (docs/services/auth.md, "PKCE"): a `flowType: 'pkce'` client keeps the
// verifier, the mailed link lands on the app with `?code=`, and
// exchangeCodeForSession trades it, once.
const pkceClient = () =>
  createClient(url, anonKey, { auth: { flowType: 'pkce', persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } })
const codeIn = (location) => new URL(location).searchParams.get('code')

test('a pkce signUp link lands with a code that exchangeCodeForSession trades once', async () => {
  const supabase = pkceClient()
  const address = email('pkce-signup')
  const { error } = await supabase.auth.signUp({
    email: address,
    password: 's3cret-pw',
    options: { emailRedirectTo: 'http://localhost:5173/welcome' },
  })
  assert.equal(error, null)
  const mail = await mailTo(address)
  assert.match(linkOf(mail), /token=pkce_/)
  const { location } = await follow(linkOf(mail))
  assert.ok(location.startsWith('http://localhost:5173/welcome?code='), location)
  assert.ok(!location.includes('access_token'), location)
  const code = codeIn(location)
  const { data, error: exchangeError } = await supabase.auth.exchangeCodeForSession(code)
  assert.equal(exchangeError, null)
  assert.equal(data.user.email, address)
  assert.ok(data.user.email_confirmed_at)
  assert.ok(data.session.access_token)
  assert.equal((await supabase.auth.getUser()).data.user.email, address)

  // The verifier is gone from the client with its use; the code is gone
  // from the server: a replay with the right verifier is refused too.
  const replay = await fetch(`${url}/auth/v1/token?grant_type=pkce`, {
    method: 'POST',
    headers: { apikey: anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ auth_code: code, code_verifier: 'x'.repeat(43) }),
  })
  assert.equal(replay.status, 404)
  assert.equal((await replay.json()).error_code, 'flow_state_not_found')
})

test('pkce resetPasswordForEmail and signInWithOtp links end in sessions through exchangeCodeForSession', async () => {
  const address = email('pkce-otp')
  await client(serviceKey).auth.admin.createUser({ email: address, password: 's3cret-pw', email_confirm: true })

  const recovering = pkceClient()
  const reset = await recovering.auth.resetPasswordForEmail(address, { redirectTo: 'http://localhost:5173/reset' })
  assert.equal(reset.error, null)
  const recovery = await follow(linkOf(await mailTo(address, 0)))
  assert.ok(recovery.location.startsWith('http://localhost:5173/reset?code='), recovery.location)
  const recovered = await recovering.auth.exchangeCodeForSession(codeIn(recovery.location))
  assert.equal(recovered.error, null)
  assert.equal(recovered.data.user.email, address)
  const changed = await recovering.auth.updateUser({ password: 'n3w-s3cret-pw' })
  assert.equal(changed.error, null)

  const linking = pkceClient()
  const otp = await linking.auth.signInWithOtp({ email: address, options: { shouldCreateUser: false } })
  assert.equal(otp.error, null)
  const magic = await follow(linkOf(await mailTo(address, 1)))
  assert.ok(codeIn(magic.location), magic.location)
  const stranger = await pkceClient().auth.exchangeCodeForSession(codeIn(magic.location))
  assert.ok(stranger.error, 'a client without the verifier gets no session')
  const signedIn = await linking.auth.exchangeCodeForSession(codeIn(magic.location))
  assert.equal(signedIn.error, null)
  assert.equal(signedIn.data.user.email, address)
})
