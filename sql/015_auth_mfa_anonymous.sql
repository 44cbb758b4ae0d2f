-- MFA factors and challenges, as GoTrue keeps them (supabase/auth
-- migrations/20221003041349_add_mfa_schema.up.sql and the later ones adding
-- last_challenged_at, phone and web_authn_* columns), plus what anonymous
-- users and TOTP need here.
--
-- Deliberate differences, in columns of our own (prefixed `gateway_`), so that
-- a dump of a hosted project's MFA tables still loads:
--   * mfa_factors.secret holds the TOTP secret sealed with AES-256-GCM
--     (`gw1:` + base64 of nonce || ciphertext, the factor id as associated
--     data), never the secret itself; see gateway/src/auth/mfa.rs. A hosted
--     project's factors (GoTrue's own format) cannot be opened: those users
--     enrol again.
--   * mfa_factors.gateway_last_totp_step is the 30-second step of the last
--     code accepted, so a code is never accepted twice.
--   * mfa_challenges.gateway_attempts counts wrong codes per challenge.

do $$
begin
  if not exists (select from pg_type t join pg_namespace n on n.oid = t.typnamespace
                 where n.nspname = 'auth' and t.typname = 'factor_type') then
    create type auth.factor_type as enum ('totp', 'webauthn', 'phone');
  end if;
  if not exists (select from pg_type t join pg_namespace n on n.oid = t.typnamespace
                 where n.nspname = 'auth' and t.typname = 'factor_status') then
    create type auth.factor_status as enum ('unverified', 'verified');
  end if;
end
$$;

create table if not exists auth.mfa_factors (
  id uuid not null primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  friendly_name text,
  factor_type auth.factor_type not null,
  status auth.factor_status not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  secret text,
  phone text,
  last_challenged_at timestamptz unique,
  web_authn_credential jsonb,
  web_authn_aaguid uuid,
  gateway_last_totp_step bigint
);
create unique index if not exists mfa_factors_user_friendly_name_unique
  on auth.mfa_factors (friendly_name, user_id) where trim(friendly_name) <> '';
create index if not exists factor_id_created_at_idx on auth.mfa_factors (user_id, created_at);

create table if not exists auth.mfa_challenges (
  id uuid not null primary key,
  factor_id uuid not null references auth.mfa_factors (id) on delete cascade,
  created_at timestamptz not null,
  verified_at timestamptz,
  ip_address inet not null,
  otp_code text,
  web_authn_session_data jsonb,
  gateway_attempts integer not null default 0
);
create index if not exists mfa_challenge_created_at_idx on auth.mfa_challenges (created_at desc);

-- An anonymous user becomes permanent once it has a confirmed e-mail or phone
-- (GoTrue: `updateUser({email})` with autoconfirm, or the confirmation of the
-- change). Kept here so that every path that confirms an address, now and
-- later, obeys it.
create or replace function auth.gateway_anonymous_becomes_permanent() returns trigger
language plpgsql
as $$
begin
  if new.is_anonymous
     and ((new.email is not null and new.email_confirmed_at is not null)
          or (new.phone is not null and new.phone_confirmed_at is not null)) then
    new.is_anonymous := false;
  end if;
  return new;
end
$$;
drop trigger if exists gateway_anonymous_becomes_permanent on auth.users;
create trigger gateway_anonymous_becomes_permanent before update on auth.users
  for each row execute function auth.gateway_anonymous_becomes_permanent();

-- The user JSON of sql/010 plus `factors` (every factor, verified or not,
-- left out when there are none: GoTrue's `User.Factors`, `omitempty`), which
-- supabase-js's `listFactors` and `getAuthenticatorAssuranceLevel` read. A
-- factor's `phone` is "" when absent and `last_challenged_at` null, as Go
-- marshals GoTrue's `models.Factor`.
create or replace function auth.gateway_factor_json(f auth.mfa_factors) returns jsonb
language sql stable
as $$
  select jsonb_build_object(
    'id', f.id,
    'created_at', auth.gateway_timestamp(f.created_at),
    'updated_at', auth.gateway_timestamp(f.updated_at),
    'status', f.status,
    'factor_type', f.factor_type,
    'phone', coalesce(f.phone, ''),
    'last_challenged_at', auth.gateway_timestamp(f.last_challenged_at))
  || case when coalesce(f.friendly_name, '') = '' then '{}'::jsonb
          else jsonb_build_object('friendly_name', f.friendly_name) end
$$;

create or replace function auth.gateway_user_json(u auth.users) returns jsonb
language sql stable
as $$
  select jsonb_object_agg(key, value)
  from jsonb_each(jsonb_build_object(
    'id', u.id,
    'aud', coalesce(u.aud, ''),
    'role', coalesce(u.role, ''),
    'email', coalesce(u.email, ''),
    'email_confirmed_at', auth.gateway_timestamp(u.email_confirmed_at),
    'invited_at', auth.gateway_timestamp(u.invited_at),
    'phone', coalesce(u.phone, ''),
    'phone_confirmed_at', auth.gateway_timestamp(u.phone_confirmed_at),
    'confirmation_sent_at', auth.gateway_timestamp(u.confirmation_sent_at),
    'confirmed_at', auth.gateway_timestamp(u.confirmed_at),
    'recovery_sent_at', auth.gateway_timestamp(u.recovery_sent_at),
    'new_email', nullif(u.email_change, ''),
    'email_change_sent_at', auth.gateway_timestamp(u.email_change_sent_at),
    'last_sign_in_at', auth.gateway_timestamp(u.last_sign_in_at),
    'app_metadata', coalesce(u.raw_app_meta_data, '{}'),
    'user_metadata', coalesce(u.raw_user_meta_data, '{}'),
    'identities', coalesce((
      select jsonb_agg(jsonb_build_object(
        'identity_id', i.id,
        'id', i.provider_id,
        'user_id', i.user_id,
        'identity_data', i.identity_data,
        'provider', i.provider,
        'last_sign_in_at', auth.gateway_timestamp(i.last_sign_in_at),
        'created_at', auth.gateway_timestamp(i.created_at),
        'updated_at', auth.gateway_timestamp(i.updated_at),
        'email', i.email) order by i.created_at)
      from auth.identities i where i.user_id = u.id), '[]'),
    'factors', (select jsonb_agg(auth.gateway_factor_json(f) order by f.created_at)
                from auth.mfa_factors f where f.user_id = u.id),
    'created_at', auth.gateway_timestamp(u.created_at),
    'updated_at', auth.gateway_timestamp(u.updated_at),
    'banned_until', auth.gateway_timestamp(u.banned_until),
    'deleted_at', auth.gateway_timestamp(u.deleted_at),
    'is_anonymous', u.is_anonymous))
  where value <> 'null'::jsonb
$$;

revoke all on function auth.gateway_factor_json(auth.mfa_factors), auth.gateway_user_json(auth.users),
  auth.gateway_anonymous_becomes_permanent() from public;
grant execute on function auth.gateway_factor_json(auth.mfa_factors), auth.gateway_user_json(auth.users)
  to service_role;

revoke all on auth.mfa_factors, auth.mfa_challenges from anon, authenticated;
grant select, insert, update, delete on auth.mfa_factors, auth.mfa_challenges to service_role;
grant usage on type auth.factor_type, auth.factor_status to service_role;
