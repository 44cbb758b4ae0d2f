-- Passkeys and the `webauthn` MFA factor, kept as GoTrue keeps them
-- (supabase/auth migrations/20260302000000_add_passkeys.up.sql and
-- 20250925093508_add_last_webauthn_challenge_data.up.sql; the MFA factor's
-- `web_authn_credential` and `web_authn_aaguid` columns and the challenge's
-- `web_authn_session_data` are in sql/015).
--
-- Deliberate differences, in columns of our own (prefixed `gateway_`), so
-- that a dump of a hosted project's tables still loads:
--   * webauthn_credentials.gateway_credential is the credential as the
--     gateway's WebAuthn library (webauthn-rs) verifies with it; GoTrue's
--     columns beside it are filled for reading. A hosted project's passkeys
--     have none and cannot sign in here: those users register again.
--   * mfa_factors.web_authn_credential holds the same shape for a factor.
--   * webauthn_challenges.session_data and mfa_challenges.web_authn_session_data
--     hold webauthn-rs's ceremony state, not go-webauthn's `SessionData`.

create table if not exists auth.webauthn_credentials (
  id uuid not null default gen_random_uuid() primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  credential_id bytea not null,
  public_key bytea not null,
  attestation_type text not null default '',
  aaguid uuid,
  sign_count bigint not null default 0,
  transports jsonb not null default '[]'::jsonb,
  backup_eligible boolean not null default false,
  backed_up boolean not null default false,
  friendly_name text not null default '',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_used_at timestamptz
);
create unique index if not exists webauthn_credentials_credential_id_key
  on auth.webauthn_credentials (credential_id);
create index if not exists webauthn_credentials_user_id_idx on auth.webauthn_credentials (user_id);
alter table auth.webauthn_credentials add column if not exists gateway_credential jsonb;

-- A ceremony's state between its options and its verification, so that any
-- gateway behind a load balancer can finish what another began. Deleted when
-- used (single use); `expires_at` bounds it.
create table if not exists auth.webauthn_challenges (
  id uuid not null default gen_random_uuid() primary key,
  user_id uuid references auth.users (id) on delete cascade,
  challenge_type text not null check (challenge_type in ('signup', 'registration', 'authentication')),
  session_data jsonb not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index if not exists webauthn_challenges_user_id_idx on auth.webauthn_challenges (user_id);
create index if not exists webauthn_challenges_expires_at_idx on auth.webauthn_challenges (expires_at);

alter table auth.mfa_factors add column if not exists last_webauthn_challenge_data jsonb;

revoke all on auth.webauthn_credentials, auth.webauthn_challenges from anon, authenticated;
grant select, insert, update, delete on auth.webauthn_credentials, auth.webauthn_challenges to service_role;
