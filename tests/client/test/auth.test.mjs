// supabase-js's auth client against /auth/v1: sign-in, the session it keeps
// and refreshes, the events it emits, sign-out scopes, sign-up, the admin API
// with the service key, and GoTrue's error codes (wire-protocol.md §3).
//
// All these tests come from one address: they stay well under the 30 sign-ins
// and sign-ups per 5 minutes the gateway allows it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AuthApiError, AuthWeakPasswordError } from '@supabase/supabase-js'
import { client, serviceKey } from '../lib/env.mjs'

const admin = client(serviceKey)

function uniqueEmail(name) {
  return `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`
}

// A confirmed user made through the admin API, as an operator would.
async function seededUser(name = 'user', password = 's3cret-pw') {
  const email = uniqueEmail(name)
  const { data, error } = await admin.auth.admin.createUser({ email, password, email_confirm: true })
  assert.equal(error, null)
  return { email, password, id: data.user.id }
}

function recordEvents(supabase) {
  const events = []
  supabase.auth.onAuthStateChange((event) => events.push(event))
  return events
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 50))

test('a signed-in session is kept, refreshed, updated and ended with the events supabase-js documents', async () => {
  const user = await seededUser()
  const supabase = client()
  const events = recordEvents(supabase)

  const { data, error } = await supabase.auth.signInWithPassword({ email: user.email, password: user.password })
  assert.equal(error, null)
  assert.equal(data.user.id, user.id)
  assert.equal(data.session.token_type, 'bearer')
  assert.equal(data.session.expires_in, 3600)

  const { data: stored } = await supabase.auth.getSession()
  assert.equal(stored.session.access_token, data.session.access_token, 'no refresh far from expiry')

  const { data: fetched, error: getError } = await supabase.auth.getUser()
  assert.equal(getError, null)
  assert.equal(fetched.user.email, user.email)

  const { data: updated, error: updateError } = await supabase.auth.updateUser({ data: { name: 'Ana' } })
  assert.equal(updateError, null)
  assert.equal(updated.user.user_metadata.name, 'Ana')

  const { data: refreshed, error: refreshError } = await supabase.auth.refreshSession()
  assert.equal(refreshError, null)
  assert.notEqual(refreshed.session.refresh_token, data.session.refresh_token)
  assert.equal(refreshed.user.user_metadata.name, 'Ana')

  const { error: signOutError } = await supabase.auth.signOut()
  assert.equal(signOutError, null)
  const { data: after } = await supabase.auth.getSession()
  assert.equal(after.session, null)
  await tick()
  assert.deepEqual(events, ['INITIAL_SESSION', 'SIGNED_IN', 'USER_UPDATED', 'TOKEN_REFRESHED', 'SIGNED_OUT'])

  // The old refresh token died with the session.
  const { error: replayError } = await client().auth.refreshSession({ refresh_token: refreshed.session.refresh_token })
  assert.ok(replayError instanceof AuthApiError)
  assert.equal(replayError.code, 'refresh_token_not_found')
})

test('an access token about to expire is refreshed by getSession before it is used', async () => {
  const user = await seededUser()
  const supabase = client()
  const events = recordEvents(supabase)
  const { data } = await supabase.auth.signInWithPassword({ email: user.email, password: user.password })
  // Move the client's clock to 40 s before expiry: inside auth-js's 90 s margin.
  const realNow = Date.now
  Date.now = () => realNow() + (data.session.expires_in - 40) * 1000
  let renewed
  try {
    renewed = (await supabase.auth.getSession()).data.session
  } finally {
    Date.now = realNow
  }
  // (The access token may be byte-identical when minted in the same second.)
  assert.notEqual(renewed.refresh_token, data.session.refresh_token)
  await tick()
  assert.ok(events.includes('TOKEN_REFRESHED'), events.join(','))
  const { data: fetched, error } = await supabase.auth.getUser()
  assert.equal(error, null)
  assert.equal(fetched.user.id, user.id)
})

test('the auto-refresh ticker renews a session about to expire', async () => {
  const user = await seededUser()
  const supabase = client()
  const { data } = await supabase.auth.signInWithPassword(user)
  const refreshed = new Promise((resolve) => {
    supabase.auth.onAuthStateChange((event, session) => {
      if (event === 'TOKEN_REFRESHED') resolve(session)
    })
  })
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('no TOKEN_REFRESHED in 5 s')), 5000))
  const realNow = Date.now
  Date.now = () => realNow() + (data.session.expires_in - 60) * 1000
  try {
    await supabase.auth.startAutoRefresh()
    const session = await Promise.race([refreshed, timeout])
    assert.notEqual(session.refresh_token, data.session.refresh_token)
  } finally {
    await supabase.auth.stopAutoRefresh()
    Date.now = realNow
  }
})

test('bad credentials surface as AuthApiError with GoTrue codes', async () => {
  const user = await seededUser()
  const supabase = client()
  const cases = [
    [{ email: user.email, password: 'not-the-password' }, 400, 'invalid_credentials', 'Invalid login credentials'],
    [{ email: uniqueEmail('nobody'), password: 'not-the-password' }, 400, 'invalid_credentials', 'Invalid login credentials'],
  ]
  for (const [credentials, status, code, message] of cases) {
    const { data, error } = await supabase.auth.signInWithPassword(credentials)
    assert.equal(data.session, null)
    assert.ok(error instanceof AuthApiError, String(error))
    assert.equal(error.status, status)
    assert.equal(error.code, code)
    assert.equal(error.message, message)
  }
})

test('signUp signs in at once, and refuses a taken address and a weak password', async () => {
  const email = uniqueEmail('signup')
  const supabase = client()
  const events = recordEvents(supabase)
  const { data, error } = await supabase.auth.signUp({ email, password: 'pw123456', options: { data: { name: 'Nuevo' } } })
  assert.equal(error, null)
  assert.ok(data.session, 'autoconfirm gives a session')
  assert.equal(data.user.email, email)
  assert.equal(data.user.user_metadata.name, 'Nuevo')
  await tick()
  assert.deepEqual(events, ['INITIAL_SESSION', 'SIGNED_IN'])

  const taken = await client().auth.signUp({ email, password: 'pw123456' })
  assert.ok(taken.error instanceof AuthApiError)
  assert.equal(taken.error.status, 422)
  assert.equal(taken.error.code, 'user_already_exists')

  const weak = await client().auth.signUp({ email: uniqueEmail('weak'), password: '123' })
  assert.ok(weak.error instanceof AuthWeakPasswordError, String(weak.error))
  assert.equal(weak.error.code, 'weak_password')
  assert.deepEqual(weak.error.reasons, ['length'])
})

test('signOut ends the sessions its scope names', async () => {
  const user = await seededUser()
  const [first, second] = [client(), client()]
  await first.auth.signInWithPassword(user)
  await second.auth.signInWithPassword(user)

  assert.equal((await first.auth.signOut({ scope: 'others' })).error, null)
  // GoTrue's 403 session_not_found, which auth-js turns into this error.
  const secondUser = await second.auth.getUser()
  assert.equal(secondUser.error.name, 'AuthSessionMissingError')
  assert.equal((await second.auth.getSession()).data.session, null, 'auth-js drops a session the server ended')
  assert.equal((await first.auth.getUser()).error, null, 'the caller keeps its own session')

  assert.equal((await first.auth.signOut({ scope: 'local' })).error, null)
  assert.equal((await first.auth.getSession()).data.session, null)
})

test('the admin API creates, lists, changes and deletes users with the service key', async () => {
  const email = uniqueEmail('staff')
  const created = await admin.auth.admin.createUser({
    email,
    password: 's3cret-pw',
    email_confirm: true,
    app_metadata: { role: 'admin' },
  })
  assert.equal(created.error, null)
  assert.equal(created.data.user.app_metadata.role, 'admin')
  const id = created.data.user.id

  const listed = await admin.auth.admin.listUsers({ page: 1, per_page: 1000 })
  assert.equal(listed.error, null)
  assert.ok(listed.data.users.some((u) => u.id === id))

  const fetched = await admin.auth.admin.getUserById(id)
  assert.equal(fetched.data.user.email, email)

  const changed = await admin.auth.admin.updateUserById(id, { user_metadata: { name: 'Boss' } })
  assert.equal(changed.error, null)
  assert.equal(changed.data.user.user_metadata.name, 'Boss')

  const duplicate = await admin.auth.admin.createUser({ email, password: 's3cret-pw' })
  assert.equal(duplicate.error.code, 'email_exists')

  assert.equal((await admin.auth.admin.deleteUser(id)).error, null)
  const signIn = await client().auth.signInWithPassword({ email, password: 's3cret-pw' })
  assert.equal(signIn.error.code, 'invalid_credentials')

  // The anon key is not an admin.
  const refused = await client().auth.admin.listUsers()
  assert.equal(refused.error.status, 403)
  assert.equal(refused.error.code, 'not_admin')
})
