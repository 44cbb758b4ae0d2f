// What supabase-js sees of the gateway's front door: the API-key check and
// the error shapes it parses (wire-protocol.md §1.2, §2.6, §3.1, §4.1).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { client, url, anonKey } from '../lib/env.mjs'

test('an unknown API key is refused the way the hosted gateway refuses it', async () => {
  const { data, error, status } = await client('not-a-real-key').from('products').select('*')
  assert.equal(data, null)
  assert.equal(status, 401)
  assert.equal(error.message, 'Invalid API key')
  assert.equal(error.hint, 'Double check your Supabase `anon` or `service_role` API key.')
})

test('a forged access token is refused with PostgREST\'s JWT error', async () => {
  const forged = anonKey.slice(0, anonKey.lastIndexOf('.') + 1) + 'AAAA'
  const supabase = client()
  const { error, status } = await supabase.from('products').select('*').setHeader('Authorization', `Bearer ${forged}`)
  assert.equal(status, 401)
  assert.equal(error.code, 'PGRST301')
  assert.equal(error.message, 'JWT cryptographic operation failed')
})

test('the gateway answers health checks', async () => {
  const response = await fetch(`${url}/health`)
  assert.equal(response.status, 200)
  assert.deepEqual(await response.json(), { status: 'ok' })
})
