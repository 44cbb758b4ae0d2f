// supabase-js's `auth.signInWithSSO` on a second gateway started with SAML
// on (docs/services/auth.md: "SAML single sign-on"): an identity provider is
// registered through `/admin/sso/providers` as `supabase sso add` does, and
// `signInWithSSO` by domain and by provider id answers the provider's single
// sign-on URL with a signed authentication request. The rest of the flow
// (the provider's signed answer at the ACS) needs XML signatures node lacks;
// gateway/tests/auth_saml.rs covers it against a real identity provider.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { createClient } from '@supabase/supabase-js'

const IDP = 'https://idp.example.com'
// A self-signed certificate of the identity provider (its key was thrown
// away: nothing here is signed with it).
const IDP_CERTIFICATE =
  'MIIDFzCCAf+gAwIBAgIUTQp+37Q14hVfeCj7aM24UFg23SEwDQYJKoZIhvcNAQELBQAwGjEYMBYGA1UEAwwPaWRwLmV4YW1wbGUuY29tMCAXDTI2MTEyOTA3NTA1OFoYDzIxMjYxMTA1MDc1MDU4WjAaMRgwFgYDVQQDDA9pZHAuZXhhbXBsZS5jb20wggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQCGs8db92fUnwlqTaDGShkHnXK6Z7U8a2kBpxbyLAfZWew56kb258Ukh9U/oP3osFVxsaGum+qFoXqjbRVkKfnKdk7JactDoZ1SQaVoA+m0gzeSSVGgAhmdoFCK72JoWwAOGa2kkTDM0+hMo88tkF3HoA5URmsSoC7BkrPbzaT6adrK4dS4H1QuFcDw0/HRbfeYa549jtqhplicP9xvf1L7FC3cwLs9ukT3u+dTLXJ2AuY/UI3lxtPcDmZFtHCbuPfumCCWFwuuGSADIwtD7GMwfzyQaVpsLaCjloCMt3gfZtXb76PY079JfvGr+qLDqhlq+oM/qX20FmYT6iKlMNJjAgMBAAGjUzBRMB0GA1UdDgQWBBTQs9W9E1nb86cjGWD19cwPwELUhDAfBgNVHSMEGDAWgBTQs9W9E1nb86cjGWD19cwPwELUhDAPBgNVHRMBAf8EBTADAQH/MA0GCSqGSIb3DQEBCwUAA4IBAQAtoA8+3pZPHbNsqXiGp6E31GeEAMMt0zamj1y6O8tSbiNRzXERV6BwDrLeUzO4S3TZsAtaLeUb879dM+v56Ogt1J49DOKUzQU9K/5nLh+OQFmP2QGSwluH9peYGSHkt9mGny2hGMK4m1ZHe5zCPQQsd7rQtE3iUYXf9UltxnYXZh6XuuI5oFl+69iBff0op7+tWpMCXcs7GdTzAyOq3mhEvwsRlpQn3WgrU/sWlvleKOp1y+9kO2lf0lorw8QCDXWCEEGVO/L8n/NLlwGm64p0O2X0IzLv0TpaYosYXVP4UNOxhD0kqEoPfoGtRhCNU5bjpyNEshap+nl3z9ozEiKQ'

// A fresh entity ID per run: the database is shared with the other suites.
const metadata = (entityId) => `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${entityId}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${IDP_CERTIFICATE}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${IDP}/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`

const children = []
after(() => {
  for (const child of children) child.kill('SIGINT')
})

async function gatewayWith(env) {
  const database = process.env.GATEWAY_DATABASE_URL.replace(/user=[^&]*/, 'user=authenticator')
  const child = spawn(
    process.env.GATEWAY_BIN,
    ['serve', '--data-dir', process.env.GATEWAY_DATA_DIR, '--listen', '127.0.0.1:0'],
    { env: { ...process.env, DATABASE_URL: database, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  children.push(child)
  let banner = ''
  for await (const chunk of child.stdout) {
    banner += chunk
    if (banner.includes('service_role key:')) break
  }
  const anon = banner.match(/anon key:\s+(\S+)/)[1]
  const service = banner.match(/service_role key:\s+(\S+)/)[1]
  const url = banner.match(/API URL:\s+(\S+)/)[1]
  const connect = (flowType = 'implicit') =>
    createClient(url, anon, { auth: { persistSession: false, autoRefreshToken: false, flowType } })
  return { url, service, connect }
}

test('signInWithSSO answers the identity provider URL with a signed request', async () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const key = privateKey.export({ type: 'pkcs1', format: 'der' }).toString('base64')
  const gateway = await gatewayWith({ AUTH_SAML_ENABLED: 'true', AUTH_SAML_PRIVATE_KEY: key })

  const domain = `sso-${Date.now()}.example.com`
  const created = await fetch(`${gateway.url}/auth/v1/admin/sso/providers`, {
    method: 'POST',
    headers: {
      apikey: gateway.service,
      authorization: `Bearer ${gateway.service}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ type: 'saml', metadata_xml: metadata(`${IDP}/${domain}`), domains: [domain] }),
  })
  const provider = await created.json()
  assert.equal(created.status, 201, JSON.stringify(provider))
  try {
    for (const [flowType, params] of [
      ['implicit', { domain }],
      ['pkce', { providerId: provider.id }],
    ]) {
      const { data, error } = await gateway.connect(flowType).auth.signInWithSSO(params)
      assert.equal(error, null, flowType)
      const url = new URL(data.url)
      assert.equal(`${url.origin}${url.pathname}`, `${IDP}/sso`)
      for (const name of ['SAMLRequest', 'RelayState', 'SigAlg', 'Signature']) {
        assert.ok(url.searchParams.get(name), `${flowType}: ${name}`)
      }
    }

    const { data, error } = await gateway.connect().auth.signInWithSSO({ domain: 'nobody.example.org' })
    assert.equal(data, null)
    assert.equal(error.code, 'sso_provider_not_found')
  } finally {
    // The database is shared with the other suites.
    await fetch(`${gateway.url}/auth/v1/admin/sso/providers/${provider.id}`, {
      method: 'DELETE',
      headers: { apikey: gateway.service, authorization: `Bearer ${gateway.service}` },
    })
  }
})
