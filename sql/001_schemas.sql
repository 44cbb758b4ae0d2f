-- Schemas and default privileges as Supabase sets them up: the API roles may
-- use public, extensions, auth and storage; tables, functions and sequences
-- created later in public are granted to them, and row-level security decides
-- what each may actually see or change.
create schema if not exists auth;
create schema if not exists storage;
create schema if not exists extensions;

grant usage on schema public, extensions, auth, storage to anon, authenticated, service_role;

alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
