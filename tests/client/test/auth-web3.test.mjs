// supabase-js's `auth.signInWithWeb3` with a Solana message the test signs
// itself (node's own ed25519), on a second gateway started with Solana
// sign-ins on (docs/services/auth.md: "Web3"). auth-js sends the message and
// the signature it is given as `POST /token?grant_type=web3`. The Ethereum
// chain needs Keccak-256 and secp256k1, which node lacks; gateway/tests/auth_web3.rs
// covers it.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { generateKeyPairSync, sign } from 'node:crypto'
import { createClient } from '@supabase/supabase-js'

const SITE = 'https://shop.example.com'

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
  const url = banner.match(/API URL:\s+(\S+)/)[1]
  return () => createClient(url, anon, { auth: { persistSession: false, autoRefreshToken: false } })
}

// Bitcoin's base58 alphabet, as Solana spells public keys.
function base58(bytes) {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
  let n = BigInt('0x' + Buffer.from(bytes).toString('hex'))
  let out = ''
  while (n > 0n) {
    out = alphabet[Number(n % 58n)] + out
    n /= 58n
  }
  for (const b of bytes) {
    if (b !== 0) break
    out = '1' + out
  }
  return out
}

function solanaWallet() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url')
  return {
    address: base58(raw),
    signMessage: (message) => new Uint8Array(sign(null, Buffer.from(message), privateKey)),
  }
}

function message(address, issuedAt = new Date()) {
  return [
    'shop.example.com wants you to sign in with your Solana account:',
    address,
    '',
    'Sign in to the shop',
    '',
    `URI: ${SITE}/login`,
    'Version: 1',
    'Chain ID: solana:mainnet',
    'Nonce: k3zq8x1a9b',
    `Issued At: ${issuedAt.toISOString()}`,
  ].join('\n')
}

test('a Solana wallet signs in with signInWithWeb3 and comes back as the same user', async () => {
  const connect = await gatewayWith({ AUTH_WEB3_SOLANA_ENABLED: 'true', AUTH_SITE_URL: SITE })
  const wallet = solanaWallet()
  const text = message(wallet.address)
  const first = await connect().auth.signInWithWeb3({
    chain: 'solana',
    message: text,
    signature: wallet.signMessage(text),
  })
  assert.equal(first.error, null)
  const user = first.data.user
  assert.equal(user.app_metadata.provider, 'web3')
  assert.equal(user.identities[0].id, `web3:solana:${wallet.address}`)
  assert.equal(user.user_metadata.custom_claims.address, wallet.address)
  assert.equal(user.user_metadata.custom_claims.network, 'solana:mainnet')

  const again = message(wallet.address)
  const second = await connect().auth.signInWithWeb3({
    chain: 'solana',
    message: again,
    signature: wallet.signMessage(again),
  })
  assert.equal(second.error, null)
  assert.equal(second.data.user.id, user.id)

  const stranger = solanaWallet()
  const refused = await connect().auth.signInWithWeb3({
    chain: 'solana',
    message: text,
    signature: stranger.signMessage(text),
  })
  assert.equal(refused.data.session, null)
  assert.equal(refused.error.status, 400)
  assert.match(refused.error.message, /Signature does not match address in message/)
})

test('signInWithWeb3 is refused with web3_provider_disabled while Web3 is off', async () => {
  const connect = await gatewayWith({ AUTH_SITE_URL: SITE })
  const wallet = solanaWallet()
  const text = message(wallet.address)
  const { error } = await connect().auth.signInWithWeb3({
    chain: 'solana',
    message: text,
    signature: wallet.signMessage(text),
  })
  assert.equal(error.status, 422)
  assert.equal(error.code, 'web3_provider_disabled')
})
