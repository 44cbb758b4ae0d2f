// The real supabase-js storage client against the gateway's /storage/v1
// (wire-protocol.md §4): buckets, uploads of a File, a Blob and an
// ArrayBuffer, public URLs, downloads, listing, signed URLs, removal and the
// error codes storage-js surfaces.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { client, serviceKey } from '../lib/env.mjs'

const run = Date.now().toString(36)
const bucket = `client-${run}`
const privateBucket = `client-private-${run}`
const admin = client(serviceKey)
const files = admin.storage.from(bucket)

before(async () => {
  for (const [id, isPublic] of [[bucket, true], [privateBucket, false]]) {
    const { data, error } = await admin.storage.createBucket(id, { public: isPublic })
    assert.equal(error, null)
    assert.deepEqual(data, { name: id })
  }
})

test('a File uploads with cacheControl and comes back byte-identical from its public URL', async () => {
  const bytes = new Uint8Array(4096).map((_, i) => i % 251)
  const file = new File([bytes], 'img.png', { type: 'image/png' })
  const { data, error } = await files.upload('products/a b/img.png', file, { cacheControl: '3600', upsert: false })
  assert.equal(error, null)
  assert.equal(data.path, 'products/a b/img.png')
  assert.equal(data.fullPath, `${bucket}/products/a b/img.png`)
  assert.match(data.id, /^[0-9a-f-]{36}$/)

  const { data: { publicUrl } } = files.getPublicUrl('products/a b/img.png')
  assert.ok(publicUrl.endsWith(`/storage/v1/object/public/${bucket}/products/a%20b/img.png`), publicUrl)
  const response = await fetch(publicUrl)
  assert.equal(response.status, 200)
  assert.equal(response.headers.get('cache-control'), 'max-age=3600')
  assert.equal(response.headers.get('content-type'), 'image/png')
  assert.deepEqual(new Uint8Array(await response.arrayBuffer()), bytes)
})

test('a Blob and an ArrayBuffer upload, and download returns the same bytes', async () => {
  const blob = new Blob(['hello from a blob'], { type: 'text/plain' })
  assert.equal((await files.upload('docs/blob.txt', blob, { upsert: false })).error, null)
  const buffer = new TextEncoder().encode('hello from an ArrayBuffer').buffer
  const { error } = await files.upload('docs/buffer.txt', buffer, { contentType: 'text/plain', cacheControl: '60' })
  assert.equal(error, null)

  const { data: downloaded, error: downloadError } = await files.download('docs/blob.txt')
  assert.equal(downloadError, null)
  assert.equal(await downloaded.text(), 'hello from a blob')
  const { data: second } = await files.download('docs/buffer.txt')
  assert.equal(await second.text(), 'hello from an ArrayBuffer')
})

test('list shows one folder level', async () => {
  await files.upload('listing/one.txt', new Blob(['1']), { upsert: true })
  await files.upload('listing/two.txt', new Blob(['2']), { upsert: true })
  await files.upload('listing/sub/three.txt', new Blob(['3']), { upsert: true })
  const { data, error } = await files.list('listing')
  assert.equal(error, null)
  assert.deepEqual(data.map((entry) => entry.name), ['one.txt', 'sub', 'two.txt'])
  assert.equal(data[1].id, null)
  assert.equal(data[0].metadata.size, 1)
})

test('a signed URL serves a private object without credentials', async () => {
  const secret = admin.storage.from(privateBucket)
  assert.equal((await secret.upload('secret folder/s.txt', new Blob(['top secret']))).error, null)
  const { data, error } = await secret.createSignedUrl('secret folder/s.txt', 60)
  assert.equal(error, null)
  const response = await fetch(data.signedUrl)
  assert.equal(response.status, 200)
  assert.equal(await response.text(), 'top secret')

  // The public URL of a private bucket looks like a missing bucket.
  const { data: { publicUrl } } = secret.getPublicUrl('secret folder/s.txt')
  const hidden = await fetch(publicUrl)
  assert.equal(hidden.status, 400)
  assert.equal((await hidden.json()).message, 'Bucket not found')
})

test('a signed upload URL takes one upload', async () => {
  const { data, error } = await files.createSignedUploadUrl('signed/upload.txt')
  assert.equal(error, null)
  const uploaded = await files.uploadToSignedUrl('signed/upload.txt', data.token, new Blob(['via token']))
  assert.equal(uploaded.error, null)
  assert.equal(uploaded.data.fullPath, `${bucket}/signed/upload.txt`)
  const { data: downloaded } = await files.download('signed/upload.txt')
  assert.equal(await downloaded.text(), 'via token')
})

test('remove deletes and returns the removed objects', async () => {
  await files.upload('trash/a.txt', new Blob(['a']), { upsert: true })
  const { data, error } = await files.remove(['trash/a.txt', 'trash/never.txt'])
  assert.equal(error, null)
  assert.deepEqual(data.map((o) => o.name), ['trash/a.txt'])
  const { error: gone } = await files.download('trash/a.txt')
  assert.ok(gone)
})

test('errors carry Storage codes: duplicate, row-level security, missing bucket', async () => {
  await files.upload('dup.txt', new Blob(['1']), { upsert: true })
  const duplicate = await files.upload('dup.txt', new Blob(['2']), { upsert: false })
  assert.equal(duplicate.error.message, 'The resource already exists')
  assert.equal(duplicate.error.statusCode, '409')

  const anon = client().storage.from(bucket)
  const denied = await anon.upload('anon.txt', new Blob(['x']))
  assert.equal(denied.error.message, 'new row violates row-level security policy')
  assert.equal(denied.error.statusCode, '403')

  const missing = await admin.storage.from(`missing-${run}`).upload('x.txt', new Blob(['x']))
  assert.equal(missing.error.message, 'Bucket not found')
  assert.equal(missing.error.statusCode, '404')
})

test('purgeCache and purgeBucketCache answer success for the service role and are refused to anon', async () => {
  await files.upload('purge/a.txt', new Blob(['a']), { upsert: true })
  for (const call of [() => files.purgeCache('purge/a.txt'), () => admin.storage.purgeBucketCache(bucket, { transformations: true })]) {
    const { data, error } = await call()
    assert.equal(error, null)
    assert.deepEqual(data, { message: 'success' })
  }
  const denied = await client().storage.from(bucket).purgeCache('purge/a.txt')
  assert.equal(denied.data, null)
  assert.equal(denied.error.message, 'Access denied: Invalid role')
})

test('vector and analytics buckets are refused as on a project without them', async () => {
  const vectors = await admin.storage.vectors.createBucket(`vectors-${run}`)
  assert.equal(vectors.data, null)
  assert.equal(vectors.error.message, 'feature not enabled for this tenant')
  const analytics = await admin.storage.analytics.createBucket(`analytics-${run}`)
  assert.equal(analytics.data, null)
  assert.equal(analytics.error.message, 'feature not enabled for this tenant')
})
