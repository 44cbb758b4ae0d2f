-- Supabase's current keys (gateway/src/keys.rs; README "Keys"), kept in the
-- database so that every gateway on it agrees:
--
--   * auth.gateway_api_keys: the opaque API keys `sb_publishable_...` (act as
--     anon) and `sb_secret_...` (act as service_role). Only the SHA-256 of a
--     key is kept, and the first characters of its random part so that an
--     operator can tell keys apart (Supabase's dashboard shows as many).
--   * auth.gateway_signing_keys: the keys that sign access tokens, with their
--     place in a rotation (standby -> current -> previous -> revoked, as
--     Supabase's JWT signing keys move). The private half of an ES256 or
--     RS256 key is encrypted with a key derived from the JWT secret; an HS256
--     row stands for the configured JWT secret itself and holds no key.
--
-- Like the other auth tables, only the gateway's own bookkeeping (as
-- service_role) touches them.

create table if not exists auth.gateway_api_keys (
  id uuid primary key default gen_random_uuid(),
  name text not null,
  kind text not null check (kind in ('publishable', 'secret')),
  key_hash text not null unique,
  key_start text not null,
  -- A publishable key is meant to be public (it ships in web pages), so it is
  -- kept whole: /config.json serves it and the start banner prints it.
  publishable_key text check (kind = 'publishable' or publishable_key is null),
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);

-- A kind and a name pick one key that is in use (the first start makes a
-- publishable and a secret key both named "default", as Supabase does);
-- revoked keys keep their names for history.
create unique index if not exists gateway_api_keys_name_idx
  on auth.gateway_api_keys (kind, name) where revoked_at is null;

create table if not exists auth.gateway_signing_keys (
  id uuid primary key default gen_random_uuid(),
  algorithm text not null check (algorithm in ('ES256', 'RS256', 'HS256')),
  status text not null check (status in ('standby', 'current', 'previous', 'revoked')),
  -- base64(nonce || AES-256-GCM ciphertext) of the private key's DER; null for HS256.
  private_key text,
  -- The public half as a JWK, as /auth/v1/.well-known/jwks.json publishes it.
  public_jwk jsonb,
  created_at timestamptz not null default now(),
  status_changed_at timestamptz not null default now(),
  check ((algorithm = 'HS256') = (private_key is null and public_jwk is null))
);

create unique index if not exists gateway_signing_keys_current_idx
  on auth.gateway_signing_keys ((true)) where status = 'current';
-- One row stands for the JWT secret.
create unique index if not exists gateway_signing_keys_hs256_idx
  on auth.gateway_signing_keys ((true)) where algorithm = 'HS256';

revoke all on auth.gateway_api_keys, auth.gateway_signing_keys from public, anon, authenticated;
grant select, insert, update on auth.gateway_api_keys, auth.gateway_signing_keys to service_role;
