// Loaded into every test process (NODE_OPTIONS=--import) when SECRETS_FILE is
// set: notes every credential the tests send or receive over fetch (API keys
// and bearer tokens in headers, passwords, tokens and codes in bodies, the
// tokens of each session the gateway hands out), so that check-secrets.mjs
// can prove that none of them reached the gateway's log.
import { appendFileSync } from 'node:fs'

const file = process.env.SECRETS_FILE
// Names of body fields that carry a credential, searched at any depth: in
// what the tests send (GoTrue's grants and verifications, Storage's signed
// tokens), and in what the gateway answers (sessions, TOTP secrets, signed
// URLs). `code` is read in requests only: PostgREST answers carry error codes
// under that name.
const requestFields = new Set([
  'password', 'new_password', 'access_token', 'refresh_token', 'provider_token', 'provider_refresh_token',
  'token', 'token_hash', 'code', 'code_verifier', 'auth_code', 'nonce', 'id_token', 'secret',
])
const answerFields = new Set([
  'access_token', 'refresh_token', 'provider_token', 'provider_refresh_token', 'id_token', 'token',
  'secret', 'signedURL', 'signedUrl', 'url', 'action_link', 'email_otp', 'hashed_token',
])
const seen = new Set()

// A value too short or too common to search a log for without false
// alarms (six-digit one-time codes: any number in a log could match) is
// left to the Rust tests, which know where each code goes.
function note(kind, value) {
  if (typeof value !== 'string' || value.length < 8 || seen.has(value)) return
  if (/^https?:\/\//.test(value)) {
    // A link's credential is in its query (`token`, `code`): a log line may
    // rightly hold the path alone.
    const link = new URL(value)
    for (const name of ['token', 'code', 'token_hash']) note(`${kind} ${name}`, link.searchParams.get(name))
    return
  }
  seen.add(value)
  appendFileSync(file, JSON.stringify({ kind, value }) + '\n')
}

function walk(value, kind, fields) {
  if (Array.isArray(value)) return value.forEach((v) => walk(v, kind, fields))
  if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (fields.has(key) && typeof inner === 'string') note(`${kind} ${key}`, inner)
      else walk(inner, kind, fields)
    }
  }
}

function noteBody(text, kind) {
  const fields = kind === 'request' ? requestFields : answerFields
  if (typeof text !== 'string' || text.length === 0 || text.length > 1 << 20) return
  try {
    walk(JSON.parse(text), kind, fields)
  } catch {
    // Form bodies (the token endpoint's grant) are key=value pairs.
    for (const [key, value] of new URLSearchParams(text)) {
      if (fields.has(key)) note(`${kind} ${key}`, value)
    }
  }
}

if (file) {
  const original = globalThis.fetch
  globalThis.fetch = async function recordingFetch(input, init = {}) {
    // Read without making a Request of it: that would take a streamed body.
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined))
    for (const name of ['authorization', 'apikey']) {
      const value = headers.get(name)
      if (value) note(`header ${name}`, value.replace(/^Bearer /i, ''))
    }
    const url = new URL(input instanceof Request ? input.url : String(input))
    for (const name of ['apikey', 'token', 'code', 'access_token']) {
      const value = url.searchParams.get(name)
      if (value) note(`query ${name}`, value)
    }
    if (typeof init.body === 'string') noteBody(init.body, 'request')
    const response = await original(input, init)
    const type = response.headers.get('content-type') ?? ''
    if (type.includes('json')) {
      response.clone().text().then((text) => noteBody(text, 'answer'), () => {})
    }
    return response
  }
}
