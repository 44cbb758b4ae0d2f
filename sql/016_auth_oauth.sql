-- Sign-in through OpenID Connect providers (issue 20, item 4): GoTrue's
-- `auth.flow_state` (supabase/auth migrations 20230322519590,
-- 20230402418590, 20240306115329, 20260115000000), one row per sign-in
-- started at `/authorize`: the PKCE challenge the app sent, where to send the
-- browser back, and, once the provider answered, the user and the auth code
-- the app trades at `/token?grant_type=pkce`.
--
-- Two columns are the gateway's own: `nonce`, sent to the provider and
-- expected back in its ID token, and `state_used_at`, set when `/callback`
-- first presents the state, so that a state is good for one callback only.

do $$
begin
  if not exists (select from pg_type t join pg_namespace n on n.oid = t.typnamespace
                 where n.nspname = 'auth' and t.typname = 'code_challenge_method') then
    create type auth.code_challenge_method as enum ('s256', 'plain');
  end if;
end
$$;

create table if not exists auth.flow_state (
  id uuid primary key,
  user_id uuid null,
  auth_code text null,
  code_challenge_method auth.code_challenge_method null,
  code_challenge text null,
  provider_type text not null,
  provider_access_token text null,
  provider_refresh_token text null,
  created_at timestamptz null,
  updated_at timestamptz null,
  authentication_method text not null,
  auth_code_issued_at timestamptz null,
  invite_token text null,
  referrer text null,
  oauth_client_state_id uuid null,
  linking_target_id uuid null,
  email_optional boolean not null default false,
  nonce text null,
  state_used_at timestamptz null
);
create index if not exists idx_auth_code on auth.flow_state (auth_code);
create index if not exists idx_user_id_auth_method on auth.flow_state (user_id, authentication_method);
create index if not exists flow_state_created_at_idx on auth.flow_state (created_at desc);
comment on table auth.flow_state is 'Stores metadata for all OAuth/SSO login flows';

revoke all on auth.flow_state from anon, authenticated;
grant select, insert, update, delete on auth.flow_state to service_role;
grant usage on type auth.code_challenge_method to service_role;
