-- Broadcast from the database
-- (https://supabase.com/docs/guides/realtime/broadcast#broadcast-from-the-database):
-- `realtime.send` and the trigger helper `realtime.broadcast_changes`, with
-- the signatures and payload shape of supabase/realtime's migrations, insert
-- a row of extension `broadcast` into realtime.messages.
--
-- Delivery: Supabase Realtime reads these rows from the WAL. Here an insert
-- trigger hands the row to the gateways' bus (NOTIFY `gateway_realtime`,
-- gateway/crates/realtime/src/bus.rs) at commit, the same path and latency
-- as a broadcast from a client, without waiting for the change feed's
-- polling reader; a rolled-back transaction (such as an authorization
-- check's) notifies nobody. The origin `database` is no gateway's, so every
-- gateway delivers it to its own members of the topic.

-- Realtime keeps realtime.messages partitioned by day (`messages_YYYY_MM_DD`,
-- by `inserted_at`) and drops the partitions older than three days
-- (supabase/realtime: `Realtime.Tenants.Janitor`, `MessagesPartition`). The
-- table of sql/030 becomes such a table here, keeping its rows, grants and
-- row-level security policies (a project's Realtime Authorization policies
-- are written on it). A default partition takes a row whose day has no
-- partition yet, so that an insert never fails; maintenance moves such rows
-- into their day's partition when it makes it.
alter table realtime.messages rename to messages_unpartitioned;
alter index realtime.messages_pkey rename to messages_unpartitioned_pkey;

create table realtime.messages (
  like realtime.messages_unpartitioned including defaults
) partition by range (inserted_at);
alter table realtime.messages add primary key (id, inserted_at);
create table realtime.messages_default partition of realtime.messages default;
insert into realtime.messages select * from realtime.messages_unpartitioned;
alter table realtime.messages enable row level security;

do $$
declare
  grant_row record;
  policy_row record;
  roles text;
begin
  for grant_row in
    select grantee, privilege_type from information_schema.role_table_grants
    where table_schema = 'realtime' and table_name = 'messages_unpartitioned'
      and grantee <> current_user
  loop
    execute format('grant %s on realtime.messages to %s', grant_row.privilege_type,
      case when grant_row.grantee = 'PUBLIC' then 'public' else quote_ident(grant_row.grantee) end);
  end loop;
  for policy_row in
    select * from pg_policies where schemaname = 'realtime' and tablename = 'messages_unpartitioned'
  loop
    select string_agg(case when r = 'public' then 'public' else quote_ident(r) end, ', ')
      into roles from unnest(policy_row.roles) as r;
    execute format('create policy %I on realtime.messages as %s for %s to %s%s%s',
      policy_row.policyname, policy_row.permissive, policy_row.cmd, roles,
      case when policy_row.qual is not null then ' using (' || policy_row.qual || ')' else '' end,
      case when policy_row.with_check is not null then ' with check (' || policy_row.with_check || ')' else '' end);
  end loop;
end
$$;

drop table realtime.messages_unpartitioned;

-- Makes the partitions of the days from three days back to three days ahead,
-- moving into each the rows of its day that the default partition took, and
-- drops the partitions (and deletes the default partition's rows) older than
-- three days. One gateway at a time does it (a transaction-level advisory
-- lock; the others skip); each gateway calls it when its realtime bus
-- connects and every hour after.
create or replace function realtime.gateway_maintain_messages() returns void
language plpgsql volatile security definer
set search_path = ''
as $$
declare
  day date;
  name text;
  old record;
begin
  if not pg_catalog.pg_try_advisory_xact_lock(pg_catalog.hashtext('realtime.messages partitions')) then
    return;
  end if;
  for day in select d::date from pg_catalog.generate_series(current_date - 3, current_date + 3, interval '1 day') as d
  loop
    name := 'messages_' || pg_catalog.to_char(day, 'YYYY_MM_DD');
    if pg_catalog.to_regclass('realtime.' || name) is null then
      execute format('create table realtime.%I (like realtime.messages including defaults)', name);
      execute format(
        'with moved as (delete from realtime.messages_default where inserted_at >= %L and inserted_at < %L returning *) '
        'insert into realtime.%I select * from moved', day, day + 1, name);
      execute format('alter table realtime.messages attach partition realtime.%I for values from (%L) to (%L)',
        name, day, day + 1);
    end if;
  end loop;
  for old in
    select c.relname from pg_catalog.pg_inherits i
    join pg_catalog.pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'realtime.messages'::pg_catalog.regclass
      and c.relname ~ '^messages_[0-9]{4}_[0-9]{2}_[0-9]{2}$'
      and pg_catalog.to_date(pg_catalog.substr(c.relname, 10), 'YYYY_MM_DD') < current_date - 3
  loop
    execute format('drop table realtime.%I', old.relname);
  end loop;
  delete from realtime.messages_default where inserted_at < current_date - 3;
end
$$;

revoke all on function realtime.gateway_maintain_messages() from public;
grant execute on function realtime.gateway_maintain_messages() to authenticator;

select realtime.gateway_maintain_messages();

create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void
language plpgsql volatile
as $$
begin
  begin
    -- The topic is set for the insert's RLS policies, as for a join check.
    perform pg_catalog.set_config('realtime.topic', topic, true);
    insert into realtime.messages (payload, event, topic, private, extension)
    values (payload, event, topic, private, 'broadcast');
  exception when others then
    -- Realtime only warns: a failed broadcast must not undo the caller's
    -- transaction.
    raise warning 'ErrorSendingBroadcastMessage: %', sqlerrm;
  end;
end
$$;

grant execute on function realtime.send(jsonb, text, text, boolean) to anon, authenticated, service_role;

-- The trigger helper: `record`/`old_record` are the rows as to_jsonb gives
-- them, NULL where the operation has none.
create or replace function realtime.broadcast_changes(
  topic_name text, event_name text, operation text, table_name text, table_schema text,
  new record, old record, level text default 'ROW'
) returns void
language plpgsql volatile
as $$
begin
  if level = 'STATEMENT' then
    raise exception 'function can only be triggered for each row, not for each statement';
  end if;
  if operation not in ('INSERT', 'UPDATE', 'DELETE') then
    raise exception 'Unexpected operation type: %', operation;
  end if;
  perform realtime.send(
    jsonb_build_object(
      'old_record', case when old is null then null else to_jsonb(old) end,
      'record', case when new is null then null else to_jsonb(new) end,
      'operation', operation, 'table', table_name, 'schema', table_schema),
    event_name, topic_name);
end
$$;

grant execute on function realtime.broadcast_changes(text, text, text, text, text, record, record, text)
  to anon, authenticated, service_role;

-- Hands an inserted broadcast to the bus, in the bus's own envelope
-- (`encode` in bus.rs): a message over NOTIFY's 8,000 bytes goes through
-- realtime.bus_spill as the gateways' own do. The message carries the row's
-- id in `meta`, as Realtime's do, so that a client can tell a replayed
-- message from a live one.
create or replace function realtime.messages_to_bus() returns trigger
language plpgsql security definer
set search_path = ''
as $$
declare
  body text;
begin
  body := jsonb_build_object(
    'o', 'database', 'k', 'b', 'e', 'broadcast',
    't', 'realtime:' || new.topic, 'p', coalesce(new.private, false),
    'j', jsonb_build_object(
      'type', 'broadcast', 'event', new.event,
      'payload', coalesce(new.payload, '{}'::jsonb),
      'meta', jsonb_build_object('id', new.id))
  )::text;
  if octet_length(body) > 7000 then
    body := jsonb_build_object('o', 'database', 'spill', realtime.bus_spill(body))::text;
  end if;
  perform pg_catalog.pg_notify('gateway_realtime', body);
  return null;
end
$$;

revoke all on function realtime.messages_to_bus() from public;

create trigger messages_to_bus
after insert on realtime.messages
for each row when (new.extension = 'broadcast' and new.payload is not null)
execute function realtime.messages_to_bus();
