-- How each session was authenticated, as GoTrue keeps it
-- (supabase/auth `migrations/20221003041349_add_mfa_schema.up.sql`,
-- `mfa_amr_claims`): one row per method per session, so that a refreshed
-- access token carries the same `amr` list as the one first issued, and a
-- second factor verified later (MFA, `aal2`) adds its own row.

create table if not exists auth.mfa_amr_claims (
  session_id uuid not null references auth.sessions (id) on delete cascade,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  authentication_method text not null,
  id uuid not null default gen_random_uuid(),
  constraint amr_id_pk primary key (id),
  constraint mfa_amr_claims_session_id_authentication_method_pkey unique (session_id, authentication_method)
);

revoke all on auth.mfa_amr_claims from anon, authenticated;
grant select, insert, update, delete on auth.mfa_amr_claims to service_role;
