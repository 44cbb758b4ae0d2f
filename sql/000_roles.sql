-- The roles every Supabase project has, so that a schema and policies written
-- for Supabase load unchanged (supabase/postgres
-- migrations/db/init-scripts/00000000000000-initial-schema.sql).
--
--   anon           requests without a signed-in user
--   authenticated  requests with a user's access token
--   service_role   the server-side key; bypasses row-level security
--   authenticator  the only role the gateway logs in as; it can become exactly
--                  the three roles above and has no privileges of its own
--                  (NOINHERIT), like PostgREST's authenticator.
do $$
begin
  if not exists (select from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select from pg_roles where rolname = 'service_role') then
    create role service_role nologin noinherit bypassrls;
  end if;
  if not exists (select from pg_roles where rolname = 'authenticator') then
    create role authenticator login noinherit;
  end if;
end
$$;

grant anon, authenticated, service_role to authenticator;

-- Supabase's per-role statement timeouts
-- (https://supabase.com/docs/guides/database/postgres/timeouts). The gateway
-- applies a role's own settings in every request, as PostgREST does.
alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';
alter role authenticator set statement_timeout = '8s';
