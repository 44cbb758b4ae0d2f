-- Edge Functions' operator secrets (`gateway functions secrets set NAME=VALUE`;
-- docs/services/functions.md), which every function reads as a variable, as
-- `supabase secrets set` gives them on Supabase
-- (https://supabase.com/docs/guides/functions/secrets). Kept in the database
-- so that every gateway on it hands its functions the same ones.
--
-- A value is sealed as the signing keys' private halves are
-- (012_auth_keys.sql): AES-256-GCM under a key derived from the JWT secret,
-- bound to the secret's name, so a dump of the database does not reveal it.
-- The row `SUPABASE_SECRET_KEYS` (no operator secret may start with
-- `SUPABASE_`, as the Supabase CLI refuses them) holds the secret API key
-- the gateway made for its functions, sealed the same way.
--
-- Only the gateway's own bookkeeping (as service_role) touches it; the schema
-- is not one the REST API serves.

create schema if not exists supabase_functions;
revoke all on schema supabase_functions from public;
grant usage on schema supabase_functions to service_role;

create table if not exists supabase_functions.gateway_secrets (
  name text primary key check (name ~ '^[A-Za-z_][A-Za-z0-9_]*$'),
  -- base64(nonce || AES-256-GCM ciphertext and tag) of the value.
  sealed_value text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

revoke all on supabase_functions.gateway_secrets from public, anon, authenticated;
grant select, insert, update, delete on supabase_functions.gateway_secrets to service_role;
