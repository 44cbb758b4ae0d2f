-- Supabase Realtime's schema, as far as a project's own SQL sees it
-- (supabase/realtime priv/repo/migrations: `realtime.messages`,
-- `realtime.topic()`), so that Realtime Authorization policies written for
-- Supabase (https://supabase.com/docs/guides/realtime/authorization) load
-- unchanged. Private channels are authorised by RLS on realtime.messages:
-- joining needs SELECT of a row of the channel's topic, sending needs INSERT.

create schema if not exists realtime;
grant usage on schema realtime to anon, authenticated, service_role;

-- Supabase partitions it by day and keeps broadcast-from-database messages
-- in it; here it holds only the rows of authorization checks, which are
-- always rolled back.
create table if not exists realtime.messages (
  topic text not null,
  extension text not null,
  payload jsonb,
  event text,
  private boolean default false,
  updated_at timestamp without time zone not null default now(),
  inserted_at timestamp without time zone not null default now(),
  id uuid not null default gen_random_uuid(),
  primary key (id, inserted_at)
);

alter table realtime.messages enable row level security;
grant select, insert, update on realtime.messages to anon, authenticated, service_role;

-- The channel's topic (its name without `realtime:`) during a check.
create or replace function realtime.topic() returns text
language sql stable
as $$ select nullif(current_setting('realtime.topic', true), '')::text $$;

grant execute on function realtime.topic() to anon, authenticated, service_role;

-- Realtime checks a join by inserting a row per extension for the topic with
-- its own privileges and selecting them as the caller. The gateway runs the
-- check in one transaction as the caller, so the insert is this definer
-- function's; the transaction is always rolled back. It only ever inserts
-- rows of the topic being checked, and the `realtime` schema is not exposed
-- through /rest/v1.
create or replace function realtime.authorization_probe(extensions text[]) returns uuid[]
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  ids uuid[];
begin
  if realtime.topic() is null then
    raise exception 'realtime.topic is not set';
  end if;
  with inserted as (
    insert into realtime.messages (topic, extension, private)
    select realtime.topic(), e, true from unnest(extensions) as e
    returning id
  )
  select array_agg(id) into ids from inserted;
  return ids;
end
$$;

revoke all on function realtime.authorization_probe(text[]) from public;
grant execute on function realtime.authorization_probe(text[]) to anon, authenticated, service_role;

-- Broadcasts and presence between gateways on one database go through
-- NOTIFY (gateway/src/realtime/bus.rs); a message over NOTIFY's 8,000-byte
-- limit waits here for the other gateways to read it. Only the gateway's
-- login role reaches it, through the two functions below.
create table if not exists realtime.bus_spill (
  id bigint generated always as identity primary key,
  body text not null,
  created_at timestamptz not null default now()
);

revoke all on realtime.bus_spill from public;

create or replace function realtime.bus_spill(body text) returns bigint
language sql volatile security definer
set search_path = ''
as $$
  with swept as (
    delete from realtime.bus_spill where created_at < now() - interval '1 minute'
  )
  insert into realtime.bus_spill (body) values (bus_spill.body) returning id
$$;

create or replace function realtime.bus_read(spill_id bigint) returns text
language sql stable security definer
set search_path = ''
as $$ select body from realtime.bus_spill where id = spill_id $$;

revoke all on function realtime.bus_spill(text) from public;
revoke all on function realtime.bus_read(bigint) from public;
grant usage on schema realtime to authenticator;
grant execute on function realtime.bus_spill(text), realtime.bus_read(bigint) to authenticator;
