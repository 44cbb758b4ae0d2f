// Harness only: before each test, tell the logging proxy which test is running,
// so every logged HTTP exchange can be attributed to its test. Uses node:http
// (not fetch) so tests that mock fetch are unaffected.
const http = require('http')
const path = require('path')

function announce(payload) {
  return new Promise((resolve) => {
    const body = JSON.stringify(payload)
    const req = http.request(
      { host: '127.0.0.1', port: 54321, method: 'POST', path: '/__harness/test',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => { res.resume(); res.on('end', resolve) }
    )
    req.on('error', () => resolve())
    req.end(body)
  })
}

beforeEach(async () => {
  const state = expect.getState()
  await announce({ file: path.basename(state.testPath || ''), test: state.currentTestName })
})

// HARNESS_FIXUP=1 (diagnostic only, off by default): after max-affected.test.ts,
// do the cleanup its last test skips when it fails (it deletes testuser1..3 after
// its assertions), so later files are not polluted by that one failure. Lets the
// report tell cascaded failures from real ones.
if (process.env.HARNESS_FIXUP === '1') {
  afterAll(async () => {
    if (path.basename(expect.getState().testPath || '') !== 'max-affected.test.ts') return
    await announce({ file: 'max-affected.test.ts', test: '(harness fixup: cleanup skipped by the failing test)' })
    await new Promise((resolve) => {
      const req = http.request(
        { host: '127.0.0.1', port: 54321, method: 'DELETE',
          path: '/rest/v1/users?username=in.(testuser1,testuser2,testuser3)' },
        (res) => { res.resume(); res.on('end', resolve) }
      )
      req.on('error', () => resolve())
      req.end()
    })
  })
}
