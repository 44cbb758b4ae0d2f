-- `/auth/v1` as an OAuth 2.1 authorization server: GoTrue's
-- `auth.oauth_clients`, `auth.oauth_authorizations` and `auth.oauth_consents`
-- in the shape its migrations leave them (supabase/auth migrations
-- 20250731150234, 20250804100000, 20250901200500, 20250903112500,
-- 20250904133000, 20251104100000, 20251111201300, 20260121000000), and the
-- two columns it adds to `auth.sessions`: which client a session was issued
-- to and the scopes it carries.
--
-- One difference in use, not in shape: `authorization_code` holds the
-- SHA-256 (hex) of the code, as `auth.refresh_tokens.token` holds digests
-- here, so that a copy of the table hands out no live code.

do $$
begin
  if not exists (select from pg_type t join pg_namespace n on n.oid = t.typnamespace
                 where n.nspname = 'auth' and t.typname = 'oauth_registration_type') then
    create type auth.oauth_registration_type as enum ('dynamic', 'manual');
  end if;
  if not exists (select from pg_type t join pg_namespace n on n.oid = t.typnamespace
                 where n.nspname = 'auth' and t.typname = 'oauth_client_type') then
    create type auth.oauth_client_type as enum ('public', 'confidential');
  end if;
  if not exists (select from pg_type t join pg_namespace n on n.oid = t.typnamespace
                 where n.nspname = 'auth' and t.typname = 'oauth_authorization_status') then
    create type auth.oauth_authorization_status as enum ('pending', 'approved', 'denied', 'expired');
  end if;
  if not exists (select from pg_type t join pg_namespace n on n.oid = t.typnamespace
                 where n.nspname = 'auth' and t.typname = 'oauth_response_type') then
    create type auth.oauth_response_type as enum ('code');
  end if;
end
$$;

create table if not exists auth.oauth_clients (
  id uuid not null,
  client_secret_hash text null,
  registration_type auth.oauth_registration_type not null,
  redirect_uris text not null,
  grant_types text not null,
  client_name text null,
  client_uri text null,
  logo_uri text null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz null,
  client_type auth.oauth_client_type not null default 'confidential',
  token_endpoint_auth_method text not null
    check (token_endpoint_auth_method in ('client_secret_basic', 'client_secret_post', 'none')),
  constraint oauth_clients_pkey primary key (id),
  constraint oauth_clients_client_name_length check (char_length(client_name) <= 1024),
  constraint oauth_clients_client_uri_length check (char_length(client_uri) <= 2048),
  constraint oauth_clients_logo_uri_length check (char_length(logo_uri) <= 2048)
);
create index if not exists oauth_clients_deleted_at_idx on auth.oauth_clients (deleted_at);

create table if not exists auth.oauth_authorizations (
  id uuid not null,
  authorization_id text not null,
  client_id uuid not null references auth.oauth_clients (id) on delete cascade,
  user_id uuid null references auth.users (id) on delete cascade,
  redirect_uri text not null,
  scope text not null,
  state text null,
  resource text null,
  code_challenge text null,
  code_challenge_method auth.code_challenge_method null,
  response_type auth.oauth_response_type not null default 'code',
  status auth.oauth_authorization_status not null default 'pending',
  authorization_code text null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null default (now() + interval '3 minutes'),
  approved_at timestamptz null,
  nonce text null,
  constraint oauth_authorizations_pkey primary key (id),
  constraint oauth_authorizations_authorization_id_key unique (authorization_id),
  constraint oauth_authorizations_authorization_code_key unique (authorization_code),
  constraint oauth_authorizations_redirect_uri_length check (char_length(redirect_uri) <= 2048),
  constraint oauth_authorizations_scope_length check (char_length(scope) <= 4096),
  constraint oauth_authorizations_state_length check (char_length(state) <= 4096),
  constraint oauth_authorizations_resource_length check (char_length(resource) <= 2048),
  constraint oauth_authorizations_code_challenge_length check (char_length(code_challenge) <= 128),
  constraint oauth_authorizations_authorization_code_length check (char_length(authorization_code) <= 255),
  constraint oauth_authorizations_expires_at_future check (expires_at > created_at),
  constraint oauth_authorizations_nonce_length check (char_length(nonce) <= 255)
);
create index if not exists oauth_auth_pending_exp_idx
  on auth.oauth_authorizations (expires_at) where status = 'pending';

create table if not exists auth.oauth_consents (
  id uuid not null,
  user_id uuid not null references auth.users (id) on delete cascade,
  client_id uuid not null references auth.oauth_clients (id) on delete cascade,
  scopes text not null,
  granted_at timestamptz not null default now(),
  revoked_at timestamptz null,
  constraint oauth_consents_pkey primary key (id),
  constraint oauth_consents_user_client_unique unique (user_id, client_id),
  constraint oauth_consents_scopes_length check (char_length(scopes) <= 2048),
  constraint oauth_consents_scopes_not_empty check (char_length(trim(scopes)) > 0),
  constraint oauth_consents_revoked_after_granted check (revoked_at is null or revoked_at >= granted_at)
);
create index if not exists oauth_consents_active_user_client_idx
  on auth.oauth_consents (user_id, client_id) where revoked_at is null;
create index if not exists oauth_consents_user_order_idx on auth.oauth_consents (user_id, granted_at desc);
create index if not exists oauth_consents_active_client_idx
  on auth.oauth_consents (client_id) where revoked_at is null;

alter table auth.sessions add column if not exists oauth_client_id uuid
  references auth.oauth_clients (id) on delete cascade;
alter table auth.sessions add column if not exists scopes text null;
do $$
begin
  if not exists (select from pg_constraint where conname = 'sessions_scopes_length') then
    alter table auth.sessions add constraint sessions_scopes_length check (char_length(scopes) <= 4096);
  end if;
end
$$;
create index if not exists sessions_oauth_client_id_idx on auth.sessions (oauth_client_id);

revoke all on auth.oauth_clients, auth.oauth_authorizations, auth.oauth_consents from anon, authenticated;
grant select, insert, update, delete on auth.oauth_clients, auth.oauth_authorizations, auth.oauth_consents
  to service_role;
grant usage on type auth.oauth_registration_type, auth.oauth_client_type, auth.oauth_authorization_status,
  auth.oauth_response_type to service_role;
