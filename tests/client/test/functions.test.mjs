// supabase.functions.invoke against the fixture functions
// (gateway/tests/fixtures/functions/supabase), which scripts/test.sh serves.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { createClient, FunctionsFetchError, FunctionsHttpError } from '@supabase/supabase-js'
import { client, publishableKey } from '../lib/env.mjs'

const functionsDir = fileURLToPath(new URL('../../../gateway/tests/fixtures/functions/supabase/functions', import.meta.url))
const children = new Set()
after(() => {
  for (const child of children) child.kill('SIGINT')
})

// `gateway functions ... <args>` on the test gateway's database, with its JWT
// secret (scripts/test.sh exports where they are).
function functionsCommand(...args) {
  return execFileSync(
    process.env.GATEWAY_BIN,
    ['functions', '--database-url', process.env.GATEWAY_DATABASE_URL, '--data-dir', process.env.GATEWAY_DATA_DIR, ...args],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  )
}

// Another gateway on the same database and data directory, serving the
// fixture functions on `port` (0: any); its URL and anon key.
async function startGateway(port = 0) {
  const child = spawn(
    process.env.GATEWAY_BIN,
    [
      'serve', '--database-url', process.env.GATEWAY_DATABASE_URL, '--data-dir', process.env.GATEWAY_DATA_DIR,
      '--listen', `127.0.0.1:${port}`, '--functions-dir', functionsDir,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  )
  children.add(child)
  let banner = ''
  for await (const chunk of child.stdout) {
    banner += chunk
    if (banner.includes('service_role key:')) break
  }
  return { child, url: banner.match(/API URL:\s+(\S+)/)[1], anonKey: banner.match(/anon key:\s+(\S+)/)[1] }
}

async function stopGateway({ child }) {
  child.kill('SIGINT')
  if (child.exitCode === null) await once(child, 'exit')
  children.delete(child)
}

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

test('invoke sends FormData as multipart, fields and files whole', async () => {
  const form = new FormData()
  form.append('greeting', 'hello there')
  form.append('upload', new Blob(['file contents'], { type: 'text/plain' }), 'note.txt')
  const { data, error } = await client().functions.invoke('hello', { body: form })
  assert.equal(error, null)
  assert.equal(data.method, 'POST')
  assert.match(data.body, /name="greeting"\r\n\r\nhello there\r\n/)
  assert.match(data.body, /name="upload"; filename="note.txt"\r\nContent-Type: text\/plain\r\n\r\nfile contents\r\n/)
})

test('two functions, and one function twice, answer at once', async () => {
  const supabase = client()
  const started = Date.now()
  const [first, second, third] = await Promise.all([
    supabase.functions.invoke('hello', { body: { n: 1 } }),
    supabase.functions.invoke('open', { method: 'GET' }),
    supabase.functions.invoke('hello', { body: { n: 2 } }),
  ])
  assert.equal(first.error, null)
  assert.deepEqual(first.data.body, { n: 1 })
  assert.equal(second.data.open, true)
  assert.deepEqual(third.data.body, { n: 2 })
  assert.ok(Date.now() - started < 30_000)
})

test('a streamed answer arrives as the function writes it', async () => {
  const supabase = client()
  const { data, error } = await supabase.functions.invoke('stream', { method: 'GET' })
  // functions-js hands an event stream over as the Response, unread.
  assert.equal(error, null)
  const reader = data.body.getReader()
  const first = await reader.read()
  assert.equal(new TextDecoder().decode(first.value), 'data: first\n\n')
  await supabase.functions.invoke('stream/release')
  let rest = ''
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value)
  assert.equal(rest, 'data: last\n\n')
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

  const thrown = await supabase.functions.invoke('throws')
  assert.ok(thrown.error instanceof FunctionsHttpError)
  assert.equal(thrown.response.status, 500)
  assert.equal((await thrown.error.context.json()).code, 'WORKER_ERROR')

  // A runaway loop is stopped by the CPU time limit (2 s by default).
  const runaway = await supabase.functions.invoke('spin?forever', { method: 'GET' })
  assert.ok(runaway.error instanceof FunctionsHttpError)
  assert.equal(runaway.response.status, 546)
  assert.equal((await runaway.error.context.json()).code, 'WORKER_LIMIT')

  const unreachable = await createClient('http://127.0.0.1:9', publishableKey).functions.invoke('hello')
  assert.ok(unreachable.error instanceof FunctionsFetchError)
})

test('secrets set on the command line reach functions, and outlive a restart of the gateway', async () => {
  const value = `sk_test_${Date.now().toString(36)}`
  const set = functionsCommand('secrets', 'set', `STRIPE_KEY=${value}`)
  assert.equal(set.trim(), 'set STRIPE_KEY')
  try {
    const listed = functionsCommand('secrets', 'list')
    assert.match(listed, /^STRIPE_KEY\t[0-9a-f]{64}\t/m)
    assert.ok(!listed.includes(value), 'list shows a digest, not the value')

    const first = await startGateway()
    const before = await createClient(first.url, first.anonKey).functions.invoke('secrets', { method: 'GET' })
    assert.equal(before.error, null)
    assert.deepEqual(before.data, { stripeKey: value, secretKeys: ['default'], adminStatus: 200 })
    const port = new URL(first.url).port
    await stopGateway(first)

    const again = await startGateway(port)
    assert.equal(again.url, first.url)
    const after = await createClient(again.url, again.anonKey).functions.invoke('secrets', { method: 'GET' })
    assert.equal(after.error, null)
    assert.deepEqual(after.data, before.data)
    await stopGateway(again)
  } finally {
    functionsCommand('secrets', 'unset', 'STRIPE_KEY')
  }
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
