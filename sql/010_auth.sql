-- The auth schema, column for column as Supabase's (supabase/auth
-- migrations/00_init_auth_schema.up.sql and the later migrations that add
-- phone, identities, sessions, banned_until, is_anonymous ...), so that a dump
-- of a hosted project's auth.users and auth.identities loads here unchanged and
-- its `$2a$10$` bcrypt hashes sign in.
--
-- Only the gateway's own bookkeeping (as service_role) touches these tables:
-- anon and authenticated get no privilege on them, as on Supabase.
--
-- Two deliberate differences:
--   * auth.refresh_tokens.token holds the SHA-256 (hex) of the token, never the
--     token itself (reliability.md G29), so legacy plaintext tokens from a dump
--     simply do not match: those users sign in again.
--   * auth.rate_limits keeps the per-address token buckets in the database, so
--     that limits hold across several gateway instances.

do $$
begin
  if not exists (select from pg_type t join pg_namespace n on n.oid = t.typnamespace
                 where n.nspname = 'auth' and t.typname = 'aal_level') then
    create type auth.aal_level as enum ('aal1', 'aal2', 'aal3');
  end if;
end
$$;

create table if not exists auth.users (
  instance_id uuid,
  id uuid not null primary key,
  aud varchar(255),
  role varchar(255),
  email varchar(255),
  encrypted_password varchar(255),
  email_confirmed_at timestamptz,
  invited_at timestamptz,
  confirmation_token varchar(255),
  confirmation_sent_at timestamptz,
  recovery_token varchar(255),
  recovery_sent_at timestamptz,
  email_change_token_new varchar(255),
  email_change varchar(255),
  email_change_sent_at timestamptz,
  last_sign_in_at timestamptz,
  raw_app_meta_data jsonb,
  raw_user_meta_data jsonb,
  is_super_admin boolean,
  created_at timestamptz,
  updated_at timestamptz,
  phone text unique default null,
  phone_confirmed_at timestamptz,
  phone_change text default '',
  phone_change_token varchar(255) default '',
  phone_change_sent_at timestamptz,
  confirmed_at timestamptz generated always as (least(email_confirmed_at, phone_confirmed_at)) stored,
  email_change_token_current varchar(255) default '',
  email_change_confirm_status smallint default 0
    constraint users_email_change_confirm_status_check check (email_change_confirm_status between 0 and 2),
  banned_until timestamptz,
  reauthentication_token varchar(255) default '',
  reauthentication_sent_at timestamptz,
  is_sso_user boolean not null default false,
  deleted_at timestamptz,
  is_anonymous boolean not null default false
);

-- One account per e-mail among password users (Supabase's partial index).
create unique index if not exists users_email_partial_key on auth.users (email) where is_sso_user = false;
create index if not exists users_instance_id_email_idx on auth.users (instance_id, lower(email));
-- Sign-in looks addresses up case-insensitively, without instance_id.
create index if not exists users_lower_email_idx on auth.users (lower(email));

create table if not exists auth.identities (
  provider_id text not null,
  user_id uuid not null references auth.users (id) on delete cascade,
  identity_data jsonb not null,
  provider text not null,
  last_sign_in_at timestamptz,
  created_at timestamptz,
  updated_at timestamptz,
  email text generated always as (lower(identity_data ->> 'email')) stored,
  id uuid not null default gen_random_uuid() primary key,
  constraint identities_provider_id_provider_unique unique (provider_id, provider)
);
create index if not exists identities_user_id_idx on auth.identities (user_id);

create table if not exists auth.sessions (
  id uuid not null primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz,
  updated_at timestamptz,
  factor_id uuid,
  aal auth.aal_level,
  not_after timestamptz,
  refreshed_at timestamp,
  user_agent text,
  ip inet,
  tag text
);
create index if not exists sessions_user_id_idx on auth.sessions (user_id);

create table if not exists auth.refresh_tokens (
  instance_id uuid,
  id bigserial primary key,
  token varchar(255) constraint refresh_tokens_token_unique unique,
  user_id varchar(255),
  revoked boolean,
  created_at timestamptz,
  updated_at timestamptz,
  parent varchar(255),
  session_id uuid references auth.sessions (id) on delete cascade
);
create index if not exists refresh_tokens_parent_idx on auth.refresh_tokens (parent);
create index if not exists refresh_tokens_session_id_revoked_idx on auth.refresh_tokens (session_id, revoked);

-- Token buckets: `key` is "<bucket>:<client address>", `tokens` what is left at
-- `updated_at`; refilled continuously by the statement that takes from it.
create table if not exists auth.rate_limits (
  key text primary key,
  tokens double precision not null,
  updated_at timestamptz not null default now()
);
create index if not exists rate_limits_updated_at_idx on auth.rate_limits (updated_at);

-- GoTrue's JSON for a user (supabase/auth `internal/models/user.go`): empty
-- optional keys are left out, timestamps are RFC 3339 in UTC, identities are
-- nested. One definition, used by every statement that answers with a user.
create or replace function auth.gateway_timestamp(t timestamptz) returns text
language sql stable
as $$
  select to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
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
    'created_at', auth.gateway_timestamp(u.created_at),
    'updated_at', auth.gateway_timestamp(u.updated_at),
    'banned_until', auth.gateway_timestamp(u.banned_until),
    'deleted_at', auth.gateway_timestamp(u.deleted_at),
    'is_anonymous', u.is_anonymous))
  where value <> 'null'::jsonb
$$;

-- GoTrue's metadata update (`UpdateUserMetaData`): keys are merged, and a key
-- set to null is removed.
create or replace function auth.gateway_merge_metadata(current_value jsonb, changes jsonb) returns jsonb
language sql immutable
as $$
  select coalesce(jsonb_object_agg(key, value), '{}')
  from jsonb_each(coalesce(current_value, '{}') || coalesce(changes, '{}'))
  where value <> 'null'::jsonb
$$;

revoke all on function auth.gateway_timestamp(timestamptz), auth.gateway_user_json(auth.users),
  auth.gateway_merge_metadata(jsonb, jsonb) from public;
grant execute on function auth.gateway_timestamp(timestamptz), auth.gateway_user_json(auth.users),
  auth.gateway_merge_metadata(jsonb, jsonb) to service_role;

-- The API roles see nothing here; the gateway's bookkeeping runs as service_role.
revoke all on auth.users, auth.identities, auth.sessions, auth.refresh_tokens, auth.rate_limits
  from anon, authenticated;
grant select, insert, update, delete
  on auth.users, auth.identities, auth.sessions, auth.refresh_tokens, auth.rate_limits
  to service_role;
grant usage, select on sequence auth.refresh_tokens_id_seq to service_role;
grant usage on type auth.aal_level to service_role;
