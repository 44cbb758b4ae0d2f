// supabase.functions.invoke against the fixture functions
// (gateway/tests/fixtures/functions/supabase), which scripts/test.sh serves.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createClient, FunctionsFetchError, FunctionsHttpError } from '@supabase/supabase-js'
import { client, publishableKey } from '../lib/env.mjs'

test('invoke sends JSON, text and binary bodies and gets JSON back', async () => {
  const supabase = client()
  const cases = [
    ['a JSON object', { name: 'Functions' }, { name: 'Functions' }],
    ['a string', 'plain words', 'plain words'],
    ['a Blob', new Blob(['from a blob']), 'from a blob'],
    ['an ArrayBuffer', new TextEncoder().encode('from bytes').buffer, 'from bytes'],
  ]
  for (const [kind, body, received] of cases) {
    const { data, error } = await supabase.functions.invoke('hello', { body })
    assert.equal(error, null, kind)
    assert.equal(data.method, 'POST', kind)
    assert.deepEqual(data.body, received, kind)
  }
})

test('invoke with a method, headers and a subpath reaches the function as sent', async () => {
  const { data, error } = await client().functions.invoke('hello/orders/7?expand=lines', {
    method: 'PATCH',
    headers: { 'x-custom': 'yes' },
    body: { status: 'paid' },
  })
  assert.equal(error, null)
  assert.equal(data.method, 'PATCH')
  assert.equal(data.pathname, '/hello/orders/7')
  assert.equal(data.search, '?expand=lines')
  assert.equal(data.custom, 'yes')
})

test('each failure arrives as the error functions-js raises on Supabase', async () => {
  const supabase = client()
  const missing = await supabase.functions.invoke('absent')
  assert.ok(missing.error instanceof FunctionsHttpError)
  assert.equal(missing.response.status, 404)
  assert.deepEqual(await missing.error.context.json(), { code: 'NOT_FOUND', message: 'Requested function was not found' })

  const broken = await supabase.functions.invoke('broken')
  assert.ok(broken.error instanceof FunctionsHttpError)
  assert.equal(broken.response.status, 503)
  assert.equal((await broken.error.context.json()).code, 'BOOT_ERROR')

  const unreachable = await createClient('http://127.0.0.1:9', publishableKey).functions.invoke('hello')
  assert.ok(unreachable.error instanceof FunctionsFetchError)
})

test('a publishable key is no JWT: it reaches only functions without verify_jwt', async () => {
  const supabase = client(publishableKey)
  const checked = await supabase.functions.invoke('hello')
  assert.ok(checked.error instanceof FunctionsHttpError)
  assert.equal(checked.response.status, 401)
  assert.deepEqual(await checked.error.context.json(), { code: 401, message: 'Invalid JWT' })

  const open = await supabase.functions.invoke('open')
  assert.equal(open.error, null)
  assert.equal(open.data.open, true)
})
