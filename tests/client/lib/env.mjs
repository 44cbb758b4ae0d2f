// The running gateway under test; scripts/test.sh starts one and sets these.
import { createClient } from '@supabase/supabase-js'

export const url = required('GATEWAY_URL')
export const anonKey = required('ANON_KEY')
export const serviceKey = required('SERVICE_ROLE_KEY')
export const publishableKey = required('PUBLISHABLE_KEY')
export const secretKey = required('SECRET_KEY')

function required(name) {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set: run these tests through scripts/test.sh`)
  return value
}

// One client per test, with no session persisted between them.
export function client(key = anonKey) {
  return createClient(url, key, { auth: { persistSession: false, autoRefreshToken: false } })
}
