-- The change feed behind Realtime's `postgres_changes`
-- (gateway/src/realtime/changes/).
--
-- Every Supabase project has a `supabase_realtime` publication, created
-- empty; an app enables a table with `alter publication supabase_realtime add
-- table ...` (https://supabase.com/docs/guides/realtime/postgres-changes).
-- The feed decodes only what this publication carries: pgoutput filters by it.
do $$
begin
  if not exists (select 1 from pg_catalog.pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end
$$;

-- The decoded changes, in commit order, as one gateway (the reader, elected
-- through an advisory lock) publishes them for every gateway on this database
-- to tail by id. A table rather than NOTIFY payloads: a change may be larger
-- than NOTIFY's 8000 bytes, and a gateway that reconnects reads on from the
-- last id it saw. `commit_lsn` is the end of the change's transaction in the
-- WAL: the reader skips what is already here when it replays a transaction
-- whose publication committed but whose slot was not advanced yet.
create table _gateway.realtime_changes (
  id bigint generated always as identity primary key,
  commit_lsn pg_lsn not null,
  change jsonb not null,
  published_at timestamptz not null default now()
);

-- The gateway's login role reads the feed, and nothing else of it; writing
-- goes through the functions below.
grant usage on schema _gateway to authenticator;
grant select on _gateway.realtime_changes to authenticator;

-- One logical replication slot per database (slot names are cluster-wide).
-- A permanent slot, not a temporary one: it outlives the reader's session, so
-- that the gateway that takes over reads on from where the last reader
-- stopped and no change is lost (README, Realtime).
create function _gateway.realtime_slot() returns text
  language sql stable
  set search_path = pg_catalog
as $$
  select 'gateway_realtime_' || oid::text from pg_catalog.pg_database where datname = current_database()
$$;

-- Creates the slot if it is missing. Logical decoding needs the REPLICATION
-- attribute, which the login role has not: these functions run as their
-- owner (the role that applies migrations) and are granted to the login role
-- alone, which loses them once a request switches to an API role.
create function _gateway.realtime_ensure_slot() returns boolean
  language plpgsql security definer
  set search_path = pg_catalog
as $$
begin
  if exists (select 1 from pg_catalog.pg_replication_slots where slot_name = _gateway.realtime_slot()) then
    return false;
  end if;
  perform pg_catalog.pg_create_logical_replication_slot(_gateway.realtime_slot(), 'pgoutput');
  return true;
end
$$;

-- The slot's next whole transactions committed before `until`, as pgoutput
-- messages, without consuming them: the slot moves on only after their
-- publication committed (`realtime_advance`).
create function _gateway.realtime_peek(until pg_lsn, upto integer)
  returns table (lsn pg_lsn, data bytea)
  language sql security definer
  set search_path = pg_catalog
as $$
  select c.lsn, c.data
  from pg_catalog.pg_logical_slot_peek_binary_changes(
    _gateway.realtime_slot(), until, upto,
    'proto_version', '1', 'publication_names', 'supabase_realtime') c
$$;

-- Publishes decoded changes (each with its transaction's end LSN) and wakes
-- the tailing gateways. Transactions at or before the last one published are
-- skipped, so a replay after a crash publishes nothing twice. Changes older
-- than five minutes are deleted (every gateway tails within milliseconds),
-- except the newest, which the check needs.
create function _gateway.realtime_publish(lsns text[], changes jsonb[]) returns integer
  language plpgsql security definer
  set search_path = pg_catalog
as $$
declare
  last pg_lsn := (select max(commit_lsn) from _gateway.realtime_changes);
  added integer;
begin
  insert into _gateway.realtime_changes (commit_lsn, change)
  select u.lsn::pg_lsn, u.change
  from unnest(lsns, changes) with ordinality as u(lsn, change, n)
  where last is null or u.lsn::pg_lsn > last
  order by u.n;
  get diagnostics added = row_count;
  if added > 0 then
    perform pg_catalog.pg_notify('gateway_realtime_changes', '');
  end if;
  delete from _gateway.realtime_changes
  where published_at < now() - interval '5 minutes'
    and id < (select max(id) from _gateway.realtime_changes);
  return added;
end
$$;

-- Moves the slot past what was published, so the WAL behind it can go.
create function _gateway.realtime_advance(upto text) returns void
  language sql security definer
  set search_path = pg_catalog
as $$
  select from pg_catalog.pg_replication_slot_advance(_gateway.realtime_slot(), upto::pg_lsn)
$$;

-- A slot the server invalidated (it held more WAL than
-- `max_slot_wal_keep_size`, a gateway-less database for a long time) cannot
-- be read again: it is dropped, and made anew on the next read.
create function _gateway.realtime_drop_slot() returns void
  language sql security definer
  set search_path = pg_catalog
as $$
  select from pg_catalog.pg_drop_replication_slot(_gateway.realtime_slot())
  where exists (select 1 from pg_catalog.pg_replication_slots where slot_name = _gateway.realtime_slot())
$$;

revoke all on function _gateway.realtime_ensure_slot(), _gateway.realtime_peek(pg_lsn, integer),
  _gateway.realtime_publish(text[], jsonb[]), _gateway.realtime_advance(text),
  _gateway.realtime_drop_slot() from public;
grant execute on function _gateway.realtime_ensure_slot(), _gateway.realtime_peek(pg_lsn, integer),
  _gateway.realtime_publish(text[], jsonb[]), _gateway.realtime_advance(text),
  _gateway.realtime_drop_slot() to authenticator;
