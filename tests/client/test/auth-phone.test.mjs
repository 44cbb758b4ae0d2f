// Phone sign-in through the real supabase-js (docs/services/auth.md, "Phone"):
// a second gateway on the test database with Twilio configured and a test OTP
// for this run's phone (AUTH_SMS_TEST_OTP), so no SMS leaves and the code is
// known; signInWithOtp then verifyOtp signs the phone in as on Supabase.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createClient } from '@supabase/supabase-js'

// A phone no other run used: +1 555 then seven digits of the clock.
const phone = `+1555${String(Date.now() % 1e7).padStart(7, '0')}`
const code = '246810'
let gateway
let url
let anonKey

before(async () => {
  gateway = spawn(
    process.env.GATEWAY_BIN,
    ['serve', '--database-url', process.env.GATEWAY_DATABASE_URL, '--listen', '127.0.0.1:0'],
    {
      env: {
        ...process.env,
        AUTH_AUTOCONFIRM: 'false',
        AUTH_SMS_PROVIDER: 'twilio',
        // Never called: the only phone used has a test OTP.
        AUTH_SMS_API_URL: 'http://127.0.0.1:9',
        AUTH_SMS_TEST_OTP: `${phone}:${code}`,
        AUTH_SMS_MAX_FREQUENCY: '0',
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
})

after(() => {
  gateway?.kill('SIGINT')
})

const client = () => createClient(url, anonKey, { auth: { persistSession: false, autoRefreshToken: false } })

test('signInWithOtp({ phone }) and verifyOtp with the test OTP sign the phone in', async () => {
  const supabase = client()
  const { data, error } = await supabase.auth.signInWithOtp({ phone, options: { channel: 'sms' } })
  assert.equal(error, null)
  assert.equal(data.messageId, 'test-otp')

  const wrong = await supabase.auth.verifyOtp({ phone, token: '000000', type: 'sms' })
  assert.equal(wrong.error?.code, 'otp_expired')

  const { data: verified, error: verifyError } = await supabase.auth.verifyOtp({ phone, token: code, type: 'sms' })
  assert.equal(verifyError, null)
  assert.equal(verified.user.phone, phone.slice(1))
  assert.ok(verified.user.phone_confirmed_at)
  const { data: current } = await supabase.auth.getUser()
  assert.equal(current.user.id, verified.user.id)

  const reused = await supabase.auth.verifyOtp({ phone, token: code, type: 'sms' })
  assert.equal(reused.error?.code, 'otp_expired')
})

test('signInWithOtp({ phone, options: { shouldCreateUser: false } }) refuses an unknown phone', async () => {
  const { error } = await client().auth.signInWithOtp({ phone: '+15550000001', options: { shouldCreateUser: false } })
  assert.equal(error?.code, 'otp_disabled')
})
