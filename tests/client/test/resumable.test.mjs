// Resumable uploads with the real tus-js-client (what Supabase documents for
// files above a few megabytes, and what Uppy uses) against the gateway's
// /storage/v1/upload/resumable: an upload cut midway through a request is
// resumed on a second gateway process of the same database and store, and
// the stored bytes are compared with the file.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createServer, connect } from 'node:net'
import { randomBytes } from 'node:crypto'
import * as tus from 'tus-js-client'
import { url, client, serviceKey } from '../lib/env.mjs'

const run = Date.now().toString(36)
const bucket = `resumable-${run}`
const admin = client(serviceKey)
const headers = { authorization: `Bearer ${serviceKey}`, apikey: serviceKey }
const MiB = 1024 * 1024
let second

before(async () => {
  const { error } = await admin.storage.createBucket(bucket, { public: false })
  assert.equal(error, null)
  second = await startSecondGateway()
})

after(() => second?.stop())

function upload(file, options) {
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(file, {
      endpoint: `${url}/storage/v1/upload/resumable`,
      retryDelays: [],
      headers,
      chunkSize: 6 * MiB,
      onError: reject,
      onSuccess: () => resolve(upload),
      ...options(() => upload, resolve, reject),
    })
    upload.start()
  })
}

async function download(name) {
  const { data, error } = await admin.storage.from(bucket).download(name)
  assert.equal(error, null)
  return Buffer.from(await data.arrayBuffer())
}

test('a file sent in 6 MiB chunks, the first with the creation, arrives whole with its content type and metadata', async () => {
  const file = randomBytes(13 * MiB + 12345)
  await upload(file, () => ({
    uploadDataDuringCreation: true,
    metadata: { bucketName: bucket, objectName: 'whole.bin', contentType: 'application/x-test', cacheControl: '60', metadata: JSON.stringify({ part: 'one' }) },
  }))
  assert.ok((await download('whole.bin')).equals(file), 'the stored bytes differ')
  const { data: info, error } = await admin.storage.from(bucket).info('whole.bin')
  assert.equal(error, null)
  assert.equal(info.size, file.length)
  assert.equal(info.contentType, 'application/x-test')
  assert.equal(info.cacheControl, 'max-age=60')
  assert.deepEqual(info.metadata, { part: 'one' })
})

test('an upload cut midway resumes on another gateway, stops again, and ends after that gateway restarts', async () => {
  const file = randomBytes(15 * MiB)
  // The network drops after 9 MiB, halfway through the second chunk.
  const network = await droppingProxy(new URL(url), 9 * MiB)
  let cut
  const error = await upload(file, (self) => {
    cut = self
    return {
      endpoint: `${network.url}/storage/v1/upload/resumable`,
      metadata: { bucketName: bucket, objectName: 'resumed.bin', contentType: 'application/octet-stream' },
    }
  }).then(() => null, (e) => e)
  network.close()
  assert.ok(error, 'the upload was cut')
  const path = new URL(cut().url).pathname
  assert.match(path, /^\/storage\/v1\/upload\/resumable\/[A-Za-z0-9_-]+$/)

  // The other gateway knows where the upload stands: past the first chunk,
  // with what arrived of the second kept.
  const resumeUrl = `${second.url}${path}`
  const probe = await fetch(resumeUrl, { method: 'HEAD', headers: { ...headers, 'tus-resumable': '1.0.0' } })
  assert.equal(probe.status, 200)
  const offset = Number(probe.headers.get('upload-offset'))
  assert.ok(offset > 8 * MiB && offset < 9 * MiB, `offset ${offset}`)

  // Two more chunks of 1 MiB on the second gateway, which is then
  // restarted; the upload ends on the restarted process.
  let resumedFrom
  await upload(file, (self, resolve, reject) => ({
    uploadUrl: resumeUrl,
    chunkSize: MiB,
    onProgress: (sent) => { resumedFrom ??= sent },
    onChunkComplete: (_, accepted) => {
      if (accepted >= offset + 2 * MiB) self().abort().then(() => resolve(self()), reject)
    },
    onSuccess: () => reject(new Error('the upload was not stopped')),
  }))
  assert.ok(resumedFrom >= offset, `resumed from ${resumedFrom}`)
  const kept = await fetch(resumeUrl, { method: 'HEAD', headers: { ...headers, 'tus-resumable': '1.0.0' } })
  const keptOffset = Number(kept.headers.get('upload-offset'))
  assert.equal(keptOffset, offset + 2 * MiB)
  await second.stop()
  second = await startSecondGateway()
  const restartedUrl = `${second.url}${path}`
  const again = await fetch(restartedUrl, { method: 'HEAD', headers: { ...headers, 'tus-resumable': '1.0.0' } })
  assert.equal(Number(again.headers.get('upload-offset')), keptOffset)
  await upload(file, () => ({ uploadUrl: restartedUrl }))
  assert.ok((await download('resumed.bin')).equals(file), 'the stored bytes differ')
  const { data: info } = await admin.storage.from(bucket).info('resumed.bin')
  assert.equal(info.size, file.length)
})

test('refusals reach tus-js-client with Storage status and message', async () => {
  const error = await upload(randomBytes(1000), (self, resolve) => ({
    metadata: { bucketName: `missing-${run}`, objectName: 'x.bin' },
    onError: resolve,
    onSuccess: () => resolve(null),
  })).catch((e) => e)
  assert.ok(error instanceof tus.DetailedError, String(error))
  assert.equal(error.originalResponse.getStatus(), 404)
  assert.equal(error.originalResponse.getBody(), 'Bucket not found')
})

// A TCP proxy to the gateway that cuts the connection once `limit` bytes
// from the client have gone through it, as a failing network does; the
// gateway reads what reached it before the cut.
async function droppingProxy(target, limit) {
  let forwarded = 0
  const sockets = new Set()
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname)
    sockets.add(client).add(upstream)
    client.on('data', (data) => {
      if (forwarded >= limit) return
      const room = limit - forwarded
      forwarded += Math.min(room, data.length)
      if (data.length < room) {
        upstream.write(data)
        return
      }
      // The gateway gets every byte up to the limit, then the end of the
      // stream; the client gets a reset.
      upstream.end(data.subarray(0, room))
      client.destroy()
    })
    upstream.on('data', (data) => client.write(data))
    for (const socket of [client, upstream]) socket.on('error', () => {})
    client.on('close', () => upstream.end())
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => { for (const socket of sockets) socket.destroy(); server.close() },
  }
}

// A second `gateway serve` on the database of the one under test (its
// DATABASE_URL as the login role) and the same data folder, so the same JWT
// secret and storage root: another process behind a load balancer.
async function startSecondGateway() {
  const bin = required('GATEWAY_BIN')
  const dataDir = required('GATEWAY_DATA_DIR')
  const database = required('GATEWAY_DATABASE_URL').replace(/user=[^&]*/, 'user=authenticator')
  const child = spawn(bin, ['serve', '--data-dir', dataDir, '--listen', '127.0.0.1:0'], {
    env: { ...process.env, DATABASE_URL: database },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const address = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the second gateway did not start:\n${output}`)), 60_000)
    const read = (chunk) => {
      output += chunk
      const found = output.match(/API URL:\s+(\S+)/)
      if (found) {
        clearTimeout(timer)
        resolve(found[1])
      }
    }
    child.stdout.on('data', read)
    child.stderr.on('data', (chunk) => { output += chunk })
    child.on('exit', (code) => reject(new Error(`the second gateway exited (${code}):\n${output}`)))
  })
  return {
    url: address,
    stop: () => new Promise((resolve) => {
      child.removeAllListeners('exit')
      child.on('exit', resolve)
      child.kill('SIGINT')
    }),
  }
}

function required(name) {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set: run these tests through scripts/test.sh`)
  return value
}
