-- Binary broadcast from the database: `realtime.send_binary`, as
-- supabase/realtime's migrations define it (`AddBinaryPayloadToMessages`,
-- `AddSendBinaryFunction`, `RenameBroadcastSendWarning`): the message's bytes
-- go in realtime.messages.binary_payload, never together with a JSON
-- payload, and subscribers on the 2.0.0 serializer get them as a binary
-- broadcast (realtime-js's `encoding` 0); 1.0.0 clients cannot carry bytes
-- and get nothing, as from Realtime.

alter table realtime.messages add column if not exists binary_payload bytea;

alter table realtime.messages
  add constraint messages_payload_exclusive
  check (payload is null or binary_payload is null) not valid;

-- A partition made from now on takes the table's check constraints too,
-- without which PostgreSQL refuses to attach it
-- (sql/034_realtime_broadcast_from_database.sql made it without them).
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
      execute format('create table realtime.%I (like realtime.messages including defaults including constraints)', name);
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

create or replace function realtime.send_binary(payload bytea, event text, topic text, private boolean default true)
returns void
language plpgsql volatile
as $$
begin
  begin
    -- The topic is set for the insert's RLS policies, as for a join check.
    perform pg_catalog.set_config('realtime.topic', topic, true);
    insert into realtime.messages (binary_payload, event, topic, private, extension)
    values (payload, event, topic, private, 'broadcast');
  exception when others then
    -- Realtime only warns: a failed broadcast must not undo the caller's
    -- transaction.
    raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
  end;
end
$$;

grant execute on function realtime.send_binary(bytea, text, text, boolean) to anon, authenticated, service_role;

-- The bus's envelope (`encode` in gateway/crates/realtime/src/bus.rs) now
-- also carries a binary message: `u` is a user broadcast whose bytes are
-- base64 (`j` false: not JSON) and whose metadata is `{"id": ...}`, as
-- Realtime's `ReplicationConnection` sends a binary row.
create or replace function realtime.messages_to_bus() returns trigger
language plpgsql security definer
set search_path = ''
as $$
declare
  body jsonb;
  text_body text;
begin
  body := jsonb_build_object(
    'o', 'database', 'k', 'b', 'e', 'broadcast',
    't', 'realtime:' || new.topic, 'p', coalesce(new.private, false));
  if new.binary_payload is not null then
    body := body || jsonb_build_object('u', jsonb_build_object(
      'e', coalesce(new.event, ''), 'j', false,
      'm', jsonb_build_object('id', new.id)::text,
      'b', pg_catalog.translate(pg_catalog.encode(new.binary_payload, 'base64'), E'\n', '')));
  else
    body := body || jsonb_build_object('j', jsonb_build_object(
      'type', 'broadcast', 'event', new.event,
      'payload', coalesce(new.payload, '{}'::jsonb),
      'meta', jsonb_build_object('id', new.id)));
  end if;
  text_body := body::text;
  if octet_length(text_body) > 7000 then
    text_body := jsonb_build_object('o', 'database', 'spill', realtime.bus_spill(text_body))::text;
  end if;
  perform pg_catalog.pg_notify('gateway_realtime', text_body);
  return null;
end
$$;

revoke all on function realtime.messages_to_bus() from public;

drop trigger messages_to_bus on realtime.messages;

create trigger messages_to_bus
after insert on realtime.messages
for each row when (new.extension = 'broadcast' and (new.payload is not null or new.binary_payload is not null))
execute function realtime.messages_to_bus();
